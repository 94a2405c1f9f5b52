package dev.idnode.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * SeriesService keeps fiscal series: gapless, audited numbering for invoices (issue 26). A
 * series belongs to a database. Issue assigns the next number in commit order and records the
 * document it went on in the same Raft entry, so no number is reserved and left unused; a
 * number is never skipped, only voided by an entry with a reason; every entry carries the hash
 * of the one before it (a hash chain), so an edit or deletion shows (VerifySeries). A minority
 * refuses Issue (UNAVAILABLE, NO_QUORUM) like identities.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: idnode/v1/idnode.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class SeriesServiceGrpc {

  private SeriesServiceGrpc() {}

  public static final String SERVICE_NAME = "idnode.v1.SeriesService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.CreateSeriesRequest,
      dev.idnode.v1.CreateSeriesResponse> getCreateSeriesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateSeries",
      requestType = dev.idnode.v1.CreateSeriesRequest.class,
      responseType = dev.idnode.v1.CreateSeriesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.CreateSeriesRequest,
      dev.idnode.v1.CreateSeriesResponse> getCreateSeriesMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.CreateSeriesRequest, dev.idnode.v1.CreateSeriesResponse> getCreateSeriesMethod;
    if ((getCreateSeriesMethod = SeriesServiceGrpc.getCreateSeriesMethod) == null) {
      synchronized (SeriesServiceGrpc.class) {
        if ((getCreateSeriesMethod = SeriesServiceGrpc.getCreateSeriesMethod) == null) {
          SeriesServiceGrpc.getCreateSeriesMethod = getCreateSeriesMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.CreateSeriesRequest, dev.idnode.v1.CreateSeriesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateSeries"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.CreateSeriesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.CreateSeriesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SeriesServiceMethodDescriptorSupplier("CreateSeries"))
              .build();
        }
      }
    }
    return getCreateSeriesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.ListSeriesRequest,
      dev.idnode.v1.ListSeriesResponse> getListSeriesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListSeries",
      requestType = dev.idnode.v1.ListSeriesRequest.class,
      responseType = dev.idnode.v1.ListSeriesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.ListSeriesRequest,
      dev.idnode.v1.ListSeriesResponse> getListSeriesMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.ListSeriesRequest, dev.idnode.v1.ListSeriesResponse> getListSeriesMethod;
    if ((getListSeriesMethod = SeriesServiceGrpc.getListSeriesMethod) == null) {
      synchronized (SeriesServiceGrpc.class) {
        if ((getListSeriesMethod = SeriesServiceGrpc.getListSeriesMethod) == null) {
          SeriesServiceGrpc.getListSeriesMethod = getListSeriesMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.ListSeriesRequest, dev.idnode.v1.ListSeriesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListSeries"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ListSeriesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ListSeriesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SeriesServiceMethodDescriptorSupplier("ListSeries"))
              .build();
        }
      }
    }
    return getListSeriesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.IssueRequest,
      dev.idnode.v1.IssueResponse> getIssueMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Issue",
      requestType = dev.idnode.v1.IssueRequest.class,
      responseType = dev.idnode.v1.IssueResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.IssueRequest,
      dev.idnode.v1.IssueResponse> getIssueMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.IssueRequest, dev.idnode.v1.IssueResponse> getIssueMethod;
    if ((getIssueMethod = SeriesServiceGrpc.getIssueMethod) == null) {
      synchronized (SeriesServiceGrpc.class) {
        if ((getIssueMethod = SeriesServiceGrpc.getIssueMethod) == null) {
          SeriesServiceGrpc.getIssueMethod = getIssueMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.IssueRequest, dev.idnode.v1.IssueResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Issue"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.IssueRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.IssueResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SeriesServiceMethodDescriptorSupplier("Issue"))
              .build();
        }
      }
    }
    return getIssueMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.VoidRequest,
      dev.idnode.v1.VoidResponse> getVoidMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Void",
      requestType = dev.idnode.v1.VoidRequest.class,
      responseType = dev.idnode.v1.VoidResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.VoidRequest,
      dev.idnode.v1.VoidResponse> getVoidMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.VoidRequest, dev.idnode.v1.VoidResponse> getVoidMethod;
    if ((getVoidMethod = SeriesServiceGrpc.getVoidMethod) == null) {
      synchronized (SeriesServiceGrpc.class) {
        if ((getVoidMethod = SeriesServiceGrpc.getVoidMethod) == null) {
          SeriesServiceGrpc.getVoidMethod = getVoidMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.VoidRequest, dev.idnode.v1.VoidResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Void"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.VoidRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.VoidResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SeriesServiceMethodDescriptorSupplier("Void"))
              .build();
        }
      }
    }
    return getVoidMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.JournalRequest,
      dev.idnode.v1.SeriesEntry> getJournalMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Journal",
      requestType = dev.idnode.v1.JournalRequest.class,
      responseType = dev.idnode.v1.SeriesEntry.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.JournalRequest,
      dev.idnode.v1.SeriesEntry> getJournalMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.JournalRequest, dev.idnode.v1.SeriesEntry> getJournalMethod;
    if ((getJournalMethod = SeriesServiceGrpc.getJournalMethod) == null) {
      synchronized (SeriesServiceGrpc.class) {
        if ((getJournalMethod = SeriesServiceGrpc.getJournalMethod) == null) {
          SeriesServiceGrpc.getJournalMethod = getJournalMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.JournalRequest, dev.idnode.v1.SeriesEntry>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Journal"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.JournalRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.SeriesEntry.getDefaultInstance()))
              .setSchemaDescriptor(new SeriesServiceMethodDescriptorSupplier("Journal"))
              .build();
        }
      }
    }
    return getJournalMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.VerifySeriesRequest,
      dev.idnode.v1.VerifySeriesResponse> getVerifySeriesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "VerifySeries",
      requestType = dev.idnode.v1.VerifySeriesRequest.class,
      responseType = dev.idnode.v1.VerifySeriesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.VerifySeriesRequest,
      dev.idnode.v1.VerifySeriesResponse> getVerifySeriesMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.VerifySeriesRequest, dev.idnode.v1.VerifySeriesResponse> getVerifySeriesMethod;
    if ((getVerifySeriesMethod = SeriesServiceGrpc.getVerifySeriesMethod) == null) {
      synchronized (SeriesServiceGrpc.class) {
        if ((getVerifySeriesMethod = SeriesServiceGrpc.getVerifySeriesMethod) == null) {
          SeriesServiceGrpc.getVerifySeriesMethod = getVerifySeriesMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.VerifySeriesRequest, dev.idnode.v1.VerifySeriesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "VerifySeries"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.VerifySeriesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.VerifySeriesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new SeriesServiceMethodDescriptorSupplier("VerifySeries"))
              .build();
        }
      }
    }
    return getVerifySeriesMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static SeriesServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<SeriesServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<SeriesServiceStub>() {
        @java.lang.Override
        public SeriesServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new SeriesServiceStub(channel, callOptions);
        }
      };
    return SeriesServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static SeriesServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<SeriesServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<SeriesServiceBlockingStub>() {
        @java.lang.Override
        public SeriesServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new SeriesServiceBlockingStub(channel, callOptions);
        }
      };
    return SeriesServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static SeriesServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<SeriesServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<SeriesServiceFutureStub>() {
        @java.lang.Override
        public SeriesServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new SeriesServiceFutureStub(channel, callOptions);
        }
      };
    return SeriesServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * SeriesService keeps fiscal series: gapless, audited numbering for invoices (issue 26). A
   * series belongs to a database. Issue assigns the next number in commit order and records the
   * document it went on in the same Raft entry, so no number is reserved and left unused; a
   * number is never skipped, only voided by an entry with a reason; every entry carries the hash
   * of the one before it (a hash chain), so an edit or deletion shows (VerifySeries). A minority
   * refuses Issue (UNAVAILABLE, NO_QUORUM) like identities.
   * </pre>
   */
  public static abstract class SeriesServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * CreateSeries creates a series; ALREADY_EXISTS when the name is taken. Needs an admin key
     * of the database (or an admin credential) once the cluster has keys.
     * </pre>
     */
    public void createSeries(dev.idnode.v1.CreateSeriesRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.CreateSeriesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateSeriesMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListSeries lists a database's series with where each stands, linearizably.
     * </pre>
     */
    public void listSeries(dev.idnode.v1.ListSeriesRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ListSeriesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListSeriesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Issue assigns the next number of a series to a document. request_id is required: a retry
     * with it answers the same number and record (a caller that crashed after the commit finds
     * its number that way); with a different document it is REQUEST_ID_REUSED.
     * </pre>
     */
    public void issue(dev.idnode.v1.IssueRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.IssueResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getIssueMethod(), responseObserver);
    }

    /**
     * <pre>
     * Void records that a number is void, with a reason: an issued number cancelled, or, in a
     * series whose policy allows journaled gaps, the next number skipped. Never a hole.
     * </pre>
     */
    public void void_(dev.idnode.v1.VoidRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.VoidResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getVoidMethod(), responseObserver);
    }

    /**
     * <pre>
     * Journal streams a series' entries from seq from_seq to to_seq (0: to the end), in order.
     * </pre>
     */
    public void journal(dev.idnode.v1.JournalRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.SeriesEntry> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getJournalMethod(), responseObserver);
    }

    /**
     * <pre>
     * VerifySeries recomputes a series' hash chain and numbering and reports the first break.
     * </pre>
     */
    public void verifySeries(dev.idnode.v1.VerifySeriesRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.VerifySeriesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getVerifySeriesMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getCreateSeriesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.CreateSeriesRequest,
                dev.idnode.v1.CreateSeriesResponse>(
                  this, METHODID_CREATE_SERIES)))
          .addMethod(
            getListSeriesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.ListSeriesRequest,
                dev.idnode.v1.ListSeriesResponse>(
                  this, METHODID_LIST_SERIES)))
          .addMethod(
            getIssueMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.IssueRequest,
                dev.idnode.v1.IssueResponse>(
                  this, METHODID_ISSUE)))
          .addMethod(
            getVoidMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.VoidRequest,
                dev.idnode.v1.VoidResponse>(
                  this, METHODID_VOID)))
          .addMethod(
            getJournalMethod(),
            io.grpc.stub.ServerCalls.asyncServerStreamingCall(
              new MethodHandlers<
                dev.idnode.v1.JournalRequest,
                dev.idnode.v1.SeriesEntry>(
                  this, METHODID_JOURNAL)))
          .addMethod(
            getVerifySeriesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.VerifySeriesRequest,
                dev.idnode.v1.VerifySeriesResponse>(
                  this, METHODID_VERIFY_SERIES)))
          .build();
    }
  }

  /**
   * <pre>
   * SeriesService keeps fiscal series: gapless, audited numbering for invoices (issue 26). A
   * series belongs to a database. Issue assigns the next number in commit order and records the
   * document it went on in the same Raft entry, so no number is reserved and left unused; a
   * number is never skipped, only voided by an entry with a reason; every entry carries the hash
   * of the one before it (a hash chain), so an edit or deletion shows (VerifySeries). A minority
   * refuses Issue (UNAVAILABLE, NO_QUORUM) like identities.
   * </pre>
   */
  public static final class SeriesServiceStub extends io.grpc.stub.AbstractAsyncStub<SeriesServiceStub> {
    private SeriesServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected SeriesServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new SeriesServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * CreateSeries creates a series; ALREADY_EXISTS when the name is taken. Needs an admin key
     * of the database (or an admin credential) once the cluster has keys.
     * </pre>
     */
    public void createSeries(dev.idnode.v1.CreateSeriesRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.CreateSeriesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateSeriesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListSeries lists a database's series with where each stands, linearizably.
     * </pre>
     */
    public void listSeries(dev.idnode.v1.ListSeriesRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ListSeriesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListSeriesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Issue assigns the next number of a series to a document. request_id is required: a retry
     * with it answers the same number and record (a caller that crashed after the commit finds
     * its number that way); with a different document it is REQUEST_ID_REUSED.
     * </pre>
     */
    public void issue(dev.idnode.v1.IssueRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.IssueResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getIssueMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Void records that a number is void, with a reason: an issued number cancelled, or, in a
     * series whose policy allows journaled gaps, the next number skipped. Never a hole.
     * </pre>
     */
    public void void_(dev.idnode.v1.VoidRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.VoidResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getVoidMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Journal streams a series' entries from seq from_seq to to_seq (0: to the end), in order.
     * </pre>
     */
    public void journal(dev.idnode.v1.JournalRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.SeriesEntry> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getJournalMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * VerifySeries recomputes a series' hash chain and numbering and reports the first break.
     * </pre>
     */
    public void verifySeries(dev.idnode.v1.VerifySeriesRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.VerifySeriesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getVerifySeriesMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * SeriesService keeps fiscal series: gapless, audited numbering for invoices (issue 26). A
   * series belongs to a database. Issue assigns the next number in commit order and records the
   * document it went on in the same Raft entry, so no number is reserved and left unused; a
   * number is never skipped, only voided by an entry with a reason; every entry carries the hash
   * of the one before it (a hash chain), so an edit or deletion shows (VerifySeries). A minority
   * refuses Issue (UNAVAILABLE, NO_QUORUM) like identities.
   * </pre>
   */
  public static final class SeriesServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<SeriesServiceBlockingStub> {
    private SeriesServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected SeriesServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new SeriesServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * CreateSeries creates a series; ALREADY_EXISTS when the name is taken. Needs an admin key
     * of the database (or an admin credential) once the cluster has keys.
     * </pre>
     */
    public dev.idnode.v1.CreateSeriesResponse createSeries(dev.idnode.v1.CreateSeriesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateSeriesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListSeries lists a database's series with where each stands, linearizably.
     * </pre>
     */
    public dev.idnode.v1.ListSeriesResponse listSeries(dev.idnode.v1.ListSeriesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListSeriesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Issue assigns the next number of a series to a document. request_id is required: a retry
     * with it answers the same number and record (a caller that crashed after the commit finds
     * its number that way); with a different document it is REQUEST_ID_REUSED.
     * </pre>
     */
    public dev.idnode.v1.IssueResponse issue(dev.idnode.v1.IssueRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getIssueMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Void records that a number is void, with a reason: an issued number cancelled, or, in a
     * series whose policy allows journaled gaps, the next number skipped. Never a hole.
     * </pre>
     */
    public dev.idnode.v1.VoidResponse void_(dev.idnode.v1.VoidRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getVoidMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Journal streams a series' entries from seq from_seq to to_seq (0: to the end), in order.
     * </pre>
     */
    public java.util.Iterator<dev.idnode.v1.SeriesEntry> journal(
        dev.idnode.v1.JournalRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getJournalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * VerifySeries recomputes a series' hash chain and numbering and reports the first break.
     * </pre>
     */
    public dev.idnode.v1.VerifySeriesResponse verifySeries(dev.idnode.v1.VerifySeriesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getVerifySeriesMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * SeriesService keeps fiscal series: gapless, audited numbering for invoices (issue 26). A
   * series belongs to a database. Issue assigns the next number in commit order and records the
   * document it went on in the same Raft entry, so no number is reserved and left unused; a
   * number is never skipped, only voided by an entry with a reason; every entry carries the hash
   * of the one before it (a hash chain), so an edit or deletion shows (VerifySeries). A minority
   * refuses Issue (UNAVAILABLE, NO_QUORUM) like identities.
   * </pre>
   */
  public static final class SeriesServiceFutureStub extends io.grpc.stub.AbstractFutureStub<SeriesServiceFutureStub> {
    private SeriesServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected SeriesServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new SeriesServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * CreateSeries creates a series; ALREADY_EXISTS when the name is taken. Needs an admin key
     * of the database (or an admin credential) once the cluster has keys.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.CreateSeriesResponse> createSeries(
        dev.idnode.v1.CreateSeriesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateSeriesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListSeries lists a database's series with where each stands, linearizably.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.ListSeriesResponse> listSeries(
        dev.idnode.v1.ListSeriesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListSeriesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Issue assigns the next number of a series to a document. request_id is required: a retry
     * with it answers the same number and record (a caller that crashed after the commit finds
     * its number that way); with a different document it is REQUEST_ID_REUSED.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.IssueResponse> issue(
        dev.idnode.v1.IssueRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getIssueMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Void records that a number is void, with a reason: an issued number cancelled, or, in a
     * series whose policy allows journaled gaps, the next number skipped. Never a hole.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.VoidResponse> void_(
        dev.idnode.v1.VoidRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getVoidMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * VerifySeries recomputes a series' hash chain and numbering and reports the first break.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.VerifySeriesResponse> verifySeries(
        dev.idnode.v1.VerifySeriesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getVerifySeriesMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_CREATE_SERIES = 0;
  private static final int METHODID_LIST_SERIES = 1;
  private static final int METHODID_ISSUE = 2;
  private static final int METHODID_VOID = 3;
  private static final int METHODID_JOURNAL = 4;
  private static final int METHODID_VERIFY_SERIES = 5;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final SeriesServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(SeriesServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_CREATE_SERIES:
          serviceImpl.createSeries((dev.idnode.v1.CreateSeriesRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.CreateSeriesResponse>) responseObserver);
          break;
        case METHODID_LIST_SERIES:
          serviceImpl.listSeries((dev.idnode.v1.ListSeriesRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.ListSeriesResponse>) responseObserver);
          break;
        case METHODID_ISSUE:
          serviceImpl.issue((dev.idnode.v1.IssueRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.IssueResponse>) responseObserver);
          break;
        case METHODID_VOID:
          serviceImpl.void_((dev.idnode.v1.VoidRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.VoidResponse>) responseObserver);
          break;
        case METHODID_JOURNAL:
          serviceImpl.journal((dev.idnode.v1.JournalRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.SeriesEntry>) responseObserver);
          break;
        case METHODID_VERIFY_SERIES:
          serviceImpl.verifySeries((dev.idnode.v1.VerifySeriesRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.VerifySeriesResponse>) responseObserver);
          break;
        default:
          throw new AssertionError();
      }
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public io.grpc.stub.StreamObserver<Req> invoke(
        io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        default:
          throw new AssertionError();
      }
    }
  }

  private static abstract class SeriesServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    SeriesServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.idnode.v1.Idnode.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("SeriesService");
    }
  }

  private static final class SeriesServiceFileDescriptorSupplier
      extends SeriesServiceBaseDescriptorSupplier {
    SeriesServiceFileDescriptorSupplier() {}
  }

  private static final class SeriesServiceMethodDescriptorSupplier
      extends SeriesServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    SeriesServiceMethodDescriptorSupplier(String methodName) {
      this.methodName = methodName;
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.MethodDescriptor getMethodDescriptor() {
      return getServiceDescriptor().findMethodByName(methodName);
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (SeriesServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new SeriesServiceFileDescriptorSupplier())
              .addMethod(getCreateSeriesMethod())
              .addMethod(getListSeriesMethod())
              .addMethod(getIssueMethod())
              .addMethod(getVoidMethod())
              .addMethod(getJournalMethod())
              .addMethod(getVerifySeriesMethod())
              .build();
        }
      }
    }
    return result;
  }
}
