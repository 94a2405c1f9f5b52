package dev.idnode.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * IdService hands out document IDs in the five strategies of DESIGN.md §1.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: idnode/v1/idnode.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class IdServiceGrpc {

  private IdServiceGrpc() {}

  public static final String SERVICE_NAME = "idnode.v1.IdService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.GenerateRequest,
      dev.idnode.v1.GenerateResponse> getGenerateMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Generate",
      requestType = dev.idnode.v1.GenerateRequest.class,
      responseType = dev.idnode.v1.GenerateResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.GenerateRequest,
      dev.idnode.v1.GenerateResponse> getGenerateMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.GenerateRequest, dev.idnode.v1.GenerateResponse> getGenerateMethod;
    if ((getGenerateMethod = IdServiceGrpc.getGenerateMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getGenerateMethod = IdServiceGrpc.getGenerateMethod) == null) {
          IdServiceGrpc.getGenerateMethod = getGenerateMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.GenerateRequest, dev.idnode.v1.GenerateResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Generate"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.GenerateRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.GenerateResponse.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("Generate"))
              .build();
        }
      }
    }
    return getGenerateMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.NextIdentityRequest,
      dev.idnode.v1.NextIdentityResponse> getNextIdentityMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "NextIdentity",
      requestType = dev.idnode.v1.NextIdentityRequest.class,
      responseType = dev.idnode.v1.NextIdentityResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.NextIdentityRequest,
      dev.idnode.v1.NextIdentityResponse> getNextIdentityMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.NextIdentityRequest, dev.idnode.v1.NextIdentityResponse> getNextIdentityMethod;
    if ((getNextIdentityMethod = IdServiceGrpc.getNextIdentityMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getNextIdentityMethod = IdServiceGrpc.getNextIdentityMethod) == null) {
          IdServiceGrpc.getNextIdentityMethod = getNextIdentityMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.NextIdentityRequest, dev.idnode.v1.NextIdentityResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "NextIdentity"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.NextIdentityRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.NextIdentityResponse.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("NextIdentity"))
              .build();
        }
      }
    }
    return getNextIdentityMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.SeedIdentityRequest,
      dev.idnode.v1.SeedIdentityResponse> getSeedIdentityMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SeedIdentity",
      requestType = dev.idnode.v1.SeedIdentityRequest.class,
      responseType = dev.idnode.v1.SeedIdentityResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.SeedIdentityRequest,
      dev.idnode.v1.SeedIdentityResponse> getSeedIdentityMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.SeedIdentityRequest, dev.idnode.v1.SeedIdentityResponse> getSeedIdentityMethod;
    if ((getSeedIdentityMethod = IdServiceGrpc.getSeedIdentityMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getSeedIdentityMethod = IdServiceGrpc.getSeedIdentityMethod) == null) {
          IdServiceGrpc.getSeedIdentityMethod = getSeedIdentityMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.SeedIdentityRequest, dev.idnode.v1.SeedIdentityResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SeedIdentity"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.SeedIdentityRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.SeedIdentityResponse.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("SeedIdentity"))
              .build();
        }
      }
    }
    return getSeedIdentityMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.ListIdentitiesRequest,
      dev.idnode.v1.ListIdentitiesResponse> getListIdentitiesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListIdentities",
      requestType = dev.idnode.v1.ListIdentitiesRequest.class,
      responseType = dev.idnode.v1.ListIdentitiesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.ListIdentitiesRequest,
      dev.idnode.v1.ListIdentitiesResponse> getListIdentitiesMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.ListIdentitiesRequest, dev.idnode.v1.ListIdentitiesResponse> getListIdentitiesMethod;
    if ((getListIdentitiesMethod = IdServiceGrpc.getListIdentitiesMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getListIdentitiesMethod = IdServiceGrpc.getListIdentitiesMethod) == null) {
          IdServiceGrpc.getListIdentitiesMethod = getListIdentitiesMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.ListIdentitiesRequest, dev.idnode.v1.ListIdentitiesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListIdentities"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ListIdentitiesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ListIdentitiesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("ListIdentities"))
              .build();
        }
      }
    }
    return getListIdentitiesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.ClaimRequest,
      dev.idnode.v1.ClaimResponse> getClaimMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Claim",
      requestType = dev.idnode.v1.ClaimRequest.class,
      responseType = dev.idnode.v1.ClaimResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.ClaimRequest,
      dev.idnode.v1.ClaimResponse> getClaimMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.ClaimRequest, dev.idnode.v1.ClaimResponse> getClaimMethod;
    if ((getClaimMethod = IdServiceGrpc.getClaimMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getClaimMethod = IdServiceGrpc.getClaimMethod) == null) {
          IdServiceGrpc.getClaimMethod = getClaimMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.ClaimRequest, dev.idnode.v1.ClaimResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Claim"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ClaimRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ClaimResponse.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("Claim"))
              .build();
        }
      }
    }
    return getClaimMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.ReleaseRequest,
      dev.idnode.v1.ReleaseResponse> getReleaseMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Release",
      requestType = dev.idnode.v1.ReleaseRequest.class,
      responseType = dev.idnode.v1.ReleaseResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.ReleaseRequest,
      dev.idnode.v1.ReleaseResponse> getReleaseMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.ReleaseRequest, dev.idnode.v1.ReleaseResponse> getReleaseMethod;
    if ((getReleaseMethod = IdServiceGrpc.getReleaseMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getReleaseMethod = IdServiceGrpc.getReleaseMethod) == null) {
          IdServiceGrpc.getReleaseMethod = getReleaseMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.ReleaseRequest, dev.idnode.v1.ReleaseResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Release"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ReleaseRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ReleaseResponse.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("Release"))
              .build();
        }
      }
    }
    return getReleaseMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.ReleaseOwnerRequest,
      dev.idnode.v1.ReleaseResponse> getReleaseOwnerMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReleaseOwner",
      requestType = dev.idnode.v1.ReleaseOwnerRequest.class,
      responseType = dev.idnode.v1.ReleaseResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.ReleaseOwnerRequest,
      dev.idnode.v1.ReleaseResponse> getReleaseOwnerMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.ReleaseOwnerRequest, dev.idnode.v1.ReleaseResponse> getReleaseOwnerMethod;
    if ((getReleaseOwnerMethod = IdServiceGrpc.getReleaseOwnerMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getReleaseOwnerMethod = IdServiceGrpc.getReleaseOwnerMethod) == null) {
          IdServiceGrpc.getReleaseOwnerMethod = getReleaseOwnerMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.ReleaseOwnerRequest, dev.idnode.v1.ReleaseResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReleaseOwner"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ReleaseOwnerRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ReleaseResponse.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("ReleaseOwner"))
              .build();
        }
      }
    }
    return getReleaseOwnerMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.GetClaimsRequest,
      dev.idnode.v1.GetClaimsResponse> getGetClaimsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetClaims",
      requestType = dev.idnode.v1.GetClaimsRequest.class,
      responseType = dev.idnode.v1.GetClaimsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.GetClaimsRequest,
      dev.idnode.v1.GetClaimsResponse> getGetClaimsMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.GetClaimsRequest, dev.idnode.v1.GetClaimsResponse> getGetClaimsMethod;
    if ((getGetClaimsMethod = IdServiceGrpc.getGetClaimsMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getGetClaimsMethod = IdServiceGrpc.getGetClaimsMethod) == null) {
          IdServiceGrpc.getGetClaimsMethod = getGetClaimsMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.GetClaimsRequest, dev.idnode.v1.GetClaimsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetClaims"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.GetClaimsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.GetClaimsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("GetClaims"))
              .build();
        }
      }
    }
    return getGetClaimsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.NextHiLoRequest,
      dev.idnode.v1.NextHiLoResponse> getNextHiLoMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "NextHiLo",
      requestType = dev.idnode.v1.NextHiLoRequest.class,
      responseType = dev.idnode.v1.NextHiLoResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.NextHiLoRequest,
      dev.idnode.v1.NextHiLoResponse> getNextHiLoMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.NextHiLoRequest, dev.idnode.v1.NextHiLoResponse> getNextHiLoMethod;
    if ((getNextHiLoMethod = IdServiceGrpc.getNextHiLoMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getNextHiLoMethod = IdServiceGrpc.getNextHiLoMethod) == null) {
          IdServiceGrpc.getNextHiLoMethod = getNextHiLoMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.NextHiLoRequest, dev.idnode.v1.NextHiLoResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "NextHiLo"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.NextHiLoRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.NextHiLoResponse.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("NextHiLo"))
              .build();
        }
      }
    }
    return getNextHiLoMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.ReturnHiLoRequest,
      dev.idnode.v1.ReturnHiLoResponse> getReturnHiLoMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReturnHiLo",
      requestType = dev.idnode.v1.ReturnHiLoRequest.class,
      responseType = dev.idnode.v1.ReturnHiLoResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.ReturnHiLoRequest,
      dev.idnode.v1.ReturnHiLoResponse> getReturnHiLoMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.ReturnHiLoRequest, dev.idnode.v1.ReturnHiLoResponse> getReturnHiLoMethod;
    if ((getReturnHiLoMethod = IdServiceGrpc.getReturnHiLoMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getReturnHiLoMethod = IdServiceGrpc.getReturnHiLoMethod) == null) {
          IdServiceGrpc.getReturnHiLoMethod = getReturnHiLoMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.ReturnHiLoRequest, dev.idnode.v1.ReturnHiLoResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReturnHiLo"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ReturnHiLoRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ReturnHiLoResponse.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("ReturnHiLo"))
              .build();
        }
      }
    }
    return getReturnHiLoMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.SeedHiLoRequest,
      dev.idnode.v1.SeedHiLoResponse> getSeedHiLoMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SeedHiLo",
      requestType = dev.idnode.v1.SeedHiLoRequest.class,
      responseType = dev.idnode.v1.SeedHiLoResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.SeedHiLoRequest,
      dev.idnode.v1.SeedHiLoResponse> getSeedHiLoMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.SeedHiLoRequest, dev.idnode.v1.SeedHiLoResponse> getSeedHiLoMethod;
    if ((getSeedHiLoMethod = IdServiceGrpc.getSeedHiLoMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getSeedHiLoMethod = IdServiceGrpc.getSeedHiLoMethod) == null) {
          IdServiceGrpc.getSeedHiLoMethod = getSeedHiLoMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.SeedHiLoRequest, dev.idnode.v1.SeedHiLoResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SeedHiLo"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.SeedHiLoRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.SeedHiLoResponse.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("SeedHiLo"))
              .build();
        }
      }
    }
    return getSeedHiLoMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.ListHiLoRequest,
      dev.idnode.v1.ListHiLoResponse> getListHiLoMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListHiLo",
      requestType = dev.idnode.v1.ListHiLoRequest.class,
      responseType = dev.idnode.v1.ListHiLoResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.ListHiLoRequest,
      dev.idnode.v1.ListHiLoResponse> getListHiLoMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.ListHiLoRequest, dev.idnode.v1.ListHiLoResponse> getListHiLoMethod;
    if ((getListHiLoMethod = IdServiceGrpc.getListHiLoMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getListHiLoMethod = IdServiceGrpc.getListHiLoMethod) == null) {
          IdServiceGrpc.getListHiLoMethod = getListHiLoMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.ListHiLoRequest, dev.idnode.v1.ListHiLoResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListHiLo"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ListHiLoRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ListHiLoResponse.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("ListHiLo"))
              .build();
        }
      }
    }
    return getListHiLoMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.AcquireWorkerRequest,
      dev.idnode.v1.WorkerLease> getAcquireWorkerMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AcquireWorker",
      requestType = dev.idnode.v1.AcquireWorkerRequest.class,
      responseType = dev.idnode.v1.WorkerLease.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.AcquireWorkerRequest,
      dev.idnode.v1.WorkerLease> getAcquireWorkerMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.AcquireWorkerRequest, dev.idnode.v1.WorkerLease> getAcquireWorkerMethod;
    if ((getAcquireWorkerMethod = IdServiceGrpc.getAcquireWorkerMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getAcquireWorkerMethod = IdServiceGrpc.getAcquireWorkerMethod) == null) {
          IdServiceGrpc.getAcquireWorkerMethod = getAcquireWorkerMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.AcquireWorkerRequest, dev.idnode.v1.WorkerLease>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AcquireWorker"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.AcquireWorkerRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.WorkerLease.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("AcquireWorker"))
              .build();
        }
      }
    }
    return getAcquireWorkerMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.RenewWorkerRequest,
      dev.idnode.v1.WorkerLease> getRenewWorkerMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RenewWorker",
      requestType = dev.idnode.v1.RenewWorkerRequest.class,
      responseType = dev.idnode.v1.WorkerLease.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.RenewWorkerRequest,
      dev.idnode.v1.WorkerLease> getRenewWorkerMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.RenewWorkerRequest, dev.idnode.v1.WorkerLease> getRenewWorkerMethod;
    if ((getRenewWorkerMethod = IdServiceGrpc.getRenewWorkerMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getRenewWorkerMethod = IdServiceGrpc.getRenewWorkerMethod) == null) {
          IdServiceGrpc.getRenewWorkerMethod = getRenewWorkerMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.RenewWorkerRequest, dev.idnode.v1.WorkerLease>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RenewWorker"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.RenewWorkerRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.WorkerLease.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("RenewWorker"))
              .build();
        }
      }
    }
    return getRenewWorkerMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.ReleaseWorkerRequest,
      dev.idnode.v1.ReleaseWorkerResponse> getReleaseWorkerMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReleaseWorker",
      requestType = dev.idnode.v1.ReleaseWorkerRequest.class,
      responseType = dev.idnode.v1.ReleaseWorkerResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.ReleaseWorkerRequest,
      dev.idnode.v1.ReleaseWorkerResponse> getReleaseWorkerMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.ReleaseWorkerRequest, dev.idnode.v1.ReleaseWorkerResponse> getReleaseWorkerMethod;
    if ((getReleaseWorkerMethod = IdServiceGrpc.getReleaseWorkerMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getReleaseWorkerMethod = IdServiceGrpc.getReleaseWorkerMethod) == null) {
          IdServiceGrpc.getReleaseWorkerMethod = getReleaseWorkerMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.ReleaseWorkerRequest, dev.idnode.v1.ReleaseWorkerResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReleaseWorker"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ReleaseWorkerRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ReleaseWorkerResponse.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("ReleaseWorker"))
              .build();
        }
      }
    }
    return getReleaseWorkerMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.ListWorkersRequest,
      dev.idnode.v1.ListWorkersResponse> getListWorkersMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListWorkers",
      requestType = dev.idnode.v1.ListWorkersRequest.class,
      responseType = dev.idnode.v1.ListWorkersResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.ListWorkersRequest,
      dev.idnode.v1.ListWorkersResponse> getListWorkersMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.ListWorkersRequest, dev.idnode.v1.ListWorkersResponse> getListWorkersMethod;
    if ((getListWorkersMethod = IdServiceGrpc.getListWorkersMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getListWorkersMethod = IdServiceGrpc.getListWorkersMethod) == null) {
          IdServiceGrpc.getListWorkersMethod = getListWorkersMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.ListWorkersRequest, dev.idnode.v1.ListWorkersResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListWorkers"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ListWorkersRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ListWorkersResponse.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("ListWorkers"))
              .build();
        }
      }
    }
    return getListWorkersMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.ExplainRequest,
      dev.idnode.v1.ExplainResponse> getExplainMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Explain",
      requestType = dev.idnode.v1.ExplainRequest.class,
      responseType = dev.idnode.v1.ExplainResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.ExplainRequest,
      dev.idnode.v1.ExplainResponse> getExplainMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.ExplainRequest, dev.idnode.v1.ExplainResponse> getExplainMethod;
    if ((getExplainMethod = IdServiceGrpc.getExplainMethod) == null) {
      synchronized (IdServiceGrpc.class) {
        if ((getExplainMethod = IdServiceGrpc.getExplainMethod) == null) {
          IdServiceGrpc.getExplainMethod = getExplainMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.ExplainRequest, dev.idnode.v1.ExplainResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Explain"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ExplainRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ExplainResponse.getDefaultInstance()))
              .setSchemaDescriptor(new IdServiceMethodDescriptorSupplier("Explain"))
              .build();
        }
      }
    }
    return getExplainMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static IdServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<IdServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<IdServiceStub>() {
        @java.lang.Override
        public IdServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new IdServiceStub(channel, callOptions);
        }
      };
    return IdServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static IdServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<IdServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<IdServiceBlockingStub>() {
        @java.lang.Override
        public IdServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new IdServiceBlockingStub(channel, callOptions);
        }
      };
    return IdServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static IdServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<IdServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<IdServiceFutureStub>() {
        @java.lang.Override
        public IdServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new IdServiceFutureStub(channel, callOptions);
        }
      };
    return IdServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * IdService hands out document IDs in the five strategies of DESIGN.md §1.
   * </pre>
   */
  public static abstract class IdServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * Generate resolves a request string: a semantic ID is validated and echoed, "" is a GUID,
     * "prefix/" is a server-side ID, "prefix|" is a cluster identity.
     * </pre>
     */
    public void generate(dev.idnode.v1.GenerateRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.GenerateResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGenerateMethod(), responseObserver);
    }

    /**
     * <pre>
     * NextIdentity reserves count consecutive values of the identity counter name.
     * </pre>
     */
    public void nextIdentity(dev.idnode.v1.NextIdentityRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.NextIdentityResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getNextIdentityMethod(), responseObserver);
    }

    /**
     * <pre>
     * SeedIdentity raises (or with force, sets) an identity counter.
     * </pre>
     */
    public void seedIdentity(dev.idnode.v1.SeedIdentityRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.SeedIdentityResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSeedIdentityMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListIdentities pages through every identity counter, linearizably.
     * </pre>
     */
    public void listIdentities(dev.idnode.v1.ListIdentitiesRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ListIdentitiesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListIdentitiesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Claim records semantic IDs as taken, cluster-wide, all or nothing: an ID already claimed
     * (compared case-insensitively) is ALREADY_EXISTS naming it and its owner. A claimed
     * "prefix/N" (the identity format) makes the identity "prefix|" skip N.
     * </pre>
     */
    public void claim(dev.idnode.v1.ClaimRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ClaimResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getClaimMethod(), responseObserver);
    }

    /**
     * <pre>
     * Release gives claimed IDs back, all or nothing; IDs not claimed are left alone.
     * </pre>
     */
    public void release(dev.idnode.v1.ReleaseRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ReleaseResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReleaseMethod(), responseObserver);
    }

    /**
     * <pre>
     * ReleaseOwner gives back every ID the owner claimed in the database. New in cluster
     * version 2: FAILED_PRECONDITION, naming the nodes on older builds, until it is finalised.
     * </pre>
     */
    public void releaseOwner(dev.idnode.v1.ReleaseOwnerRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ReleaseResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReleaseOwnerMethod(), responseObserver);
    }

    /**
     * <pre>
     * GetClaims looks IDs up, or pages through the claims of a prefix, linearizably.
     * </pre>
     */
    public void getClaims(dev.idnode.v1.GetClaimsRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.GetClaimsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetClaimsMethod(), responseObserver);
    }

    /**
     * <pre>
     * NextHiLo reserves a range of numbers for a client-side HiLo generator.
     * </pre>
     */
    public void nextHiLo(dev.idnode.v1.NextHiLoRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.NextHiLoResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getNextHiLoMethod(), responseObserver);
    }

    /**
     * <pre>
     * ReturnHiLo gives back the unused tail of a range, only with its grant_id (NextHiLo
     * answers it), once, while it is the newest of its tag; a return without grant_id is
     * FAILED_PRECONDITION, one whose last is above its end INVALID_ARGUMENT.
     * </pre>
     */
    public void returnHiLo(dev.idnode.v1.ReturnHiLoRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ReturnHiLoResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReturnHiLoMethod(), responseObserver);
    }

    /**
     * <pre>
     * SeedHiLo raises a tag's Max, so the next range starts above it (moving a collection from
     * RavenDB's Raven/Hilo/&lt;tag&gt; document or another store); it never lowers it. Without API keys
     * anyone may call it; with keys it needs an admin key of the database (or the admin token).
     * </pre>
     */
    public void seedHiLo(dev.idnode.v1.SeedHiLoRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.SeedHiLoResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSeedHiLoMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListHiLo lists a database's HiLo tags a page at a time, linearizably: each tag's Max and
     * floor, and each node's pool for it: how many numbers the cluster reserved to it so far
     * and, asked of the node itself, how many it holds now, the size it tops up to, and when
     * it was last topped up.
     * </pre>
     */
    public void listHiLo(dev.idnode.v1.ListHiLoRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ListHiLoResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListHiLoMethod(), responseObserver);
    }

    /**
     * <pre>
     * AcquireWorker leases a worker ID for minting numeric IDs in-process (issue 27): mint at
     * times strictly above min_ms and up to max_ms, and stop before expires_at_ms unless renewed.
     * RESOURCE_EXHAUSTED when every worker of the layout is leased.
     * </pre>
     */
    public void acquireWorker(dev.idnode.v1.AcquireWorkerRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.WorkerLease> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAcquireWorkerMethod(), responseObserver);
    }

    /**
     * <pre>
     * RenewWorker extends a worker lease; FAILED_PRECONDITION when the lease is not the worker's
     * current one any more (stop minting with it at once and acquire another).
     * </pre>
     */
    public void renewWorker(dev.idnode.v1.RenewWorkerRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.WorkerLease> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRenewWorkerMethod(), responseObserver);
    }

    /**
     * <pre>
     * ReleaseWorker ends a worker lease now, so the worker may go to another holder.
     * </pre>
     */
    public void releaseWorker(dev.idnode.v1.ReleaseWorkerRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ReleaseWorkerResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReleaseWorkerMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListWorkers pages through the database's workers, every one ever leased (lapsed or not),
     * by worker ID, linearizably.
     * </pre>
     */
    public void listWorkers(dev.idnode.v1.ListWorkersRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ListWorkersResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListWorkersMethod(), responseObserver);
    }

    /**
     * <pre>
     * Explain says what an ID is (numeric: its time, worker and sequence; a string: which
     * strategy minted it and its parts). It reads no state and is answered by any node.
     * </pre>
     */
    public void explain(dev.idnode.v1.ExplainRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ExplainResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getExplainMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getGenerateMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.GenerateRequest,
                dev.idnode.v1.GenerateResponse>(
                  this, METHODID_GENERATE)))
          .addMethod(
            getNextIdentityMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.NextIdentityRequest,
                dev.idnode.v1.NextIdentityResponse>(
                  this, METHODID_NEXT_IDENTITY)))
          .addMethod(
            getSeedIdentityMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.SeedIdentityRequest,
                dev.idnode.v1.SeedIdentityResponse>(
                  this, METHODID_SEED_IDENTITY)))
          .addMethod(
            getListIdentitiesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.ListIdentitiesRequest,
                dev.idnode.v1.ListIdentitiesResponse>(
                  this, METHODID_LIST_IDENTITIES)))
          .addMethod(
            getClaimMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.ClaimRequest,
                dev.idnode.v1.ClaimResponse>(
                  this, METHODID_CLAIM)))
          .addMethod(
            getReleaseMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.ReleaseRequest,
                dev.idnode.v1.ReleaseResponse>(
                  this, METHODID_RELEASE)))
          .addMethod(
            getReleaseOwnerMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.ReleaseOwnerRequest,
                dev.idnode.v1.ReleaseResponse>(
                  this, METHODID_RELEASE_OWNER)))
          .addMethod(
            getGetClaimsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.GetClaimsRequest,
                dev.idnode.v1.GetClaimsResponse>(
                  this, METHODID_GET_CLAIMS)))
          .addMethod(
            getNextHiLoMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.NextHiLoRequest,
                dev.idnode.v1.NextHiLoResponse>(
                  this, METHODID_NEXT_HI_LO)))
          .addMethod(
            getReturnHiLoMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.ReturnHiLoRequest,
                dev.idnode.v1.ReturnHiLoResponse>(
                  this, METHODID_RETURN_HI_LO)))
          .addMethod(
            getSeedHiLoMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.SeedHiLoRequest,
                dev.idnode.v1.SeedHiLoResponse>(
                  this, METHODID_SEED_HI_LO)))
          .addMethod(
            getListHiLoMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.ListHiLoRequest,
                dev.idnode.v1.ListHiLoResponse>(
                  this, METHODID_LIST_HI_LO)))
          .addMethod(
            getAcquireWorkerMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.AcquireWorkerRequest,
                dev.idnode.v1.WorkerLease>(
                  this, METHODID_ACQUIRE_WORKER)))
          .addMethod(
            getRenewWorkerMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.RenewWorkerRequest,
                dev.idnode.v1.WorkerLease>(
                  this, METHODID_RENEW_WORKER)))
          .addMethod(
            getReleaseWorkerMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.ReleaseWorkerRequest,
                dev.idnode.v1.ReleaseWorkerResponse>(
                  this, METHODID_RELEASE_WORKER)))
          .addMethod(
            getListWorkersMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.ListWorkersRequest,
                dev.idnode.v1.ListWorkersResponse>(
                  this, METHODID_LIST_WORKERS)))
          .addMethod(
            getExplainMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.ExplainRequest,
                dev.idnode.v1.ExplainResponse>(
                  this, METHODID_EXPLAIN)))
          .build();
    }
  }

  /**
   * <pre>
   * IdService hands out document IDs in the five strategies of DESIGN.md §1.
   * </pre>
   */
  public static final class IdServiceStub extends io.grpc.stub.AbstractAsyncStub<IdServiceStub> {
    private IdServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected IdServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new IdServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Generate resolves a request string: a semantic ID is validated and echoed, "" is a GUID,
     * "prefix/" is a server-side ID, "prefix|" is a cluster identity.
     * </pre>
     */
    public void generate(dev.idnode.v1.GenerateRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.GenerateResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGenerateMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * NextIdentity reserves count consecutive values of the identity counter name.
     * </pre>
     */
    public void nextIdentity(dev.idnode.v1.NextIdentityRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.NextIdentityResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getNextIdentityMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * SeedIdentity raises (or with force, sets) an identity counter.
     * </pre>
     */
    public void seedIdentity(dev.idnode.v1.SeedIdentityRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.SeedIdentityResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSeedIdentityMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListIdentities pages through every identity counter, linearizably.
     * </pre>
     */
    public void listIdentities(dev.idnode.v1.ListIdentitiesRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ListIdentitiesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListIdentitiesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Claim records semantic IDs as taken, cluster-wide, all or nothing: an ID already claimed
     * (compared case-insensitively) is ALREADY_EXISTS naming it and its owner. A claimed
     * "prefix/N" (the identity format) makes the identity "prefix|" skip N.
     * </pre>
     */
    public void claim(dev.idnode.v1.ClaimRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ClaimResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getClaimMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Release gives claimed IDs back, all or nothing; IDs not claimed are left alone.
     * </pre>
     */
    public void release(dev.idnode.v1.ReleaseRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ReleaseResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReleaseMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ReleaseOwner gives back every ID the owner claimed in the database. New in cluster
     * version 2: FAILED_PRECONDITION, naming the nodes on older builds, until it is finalised.
     * </pre>
     */
    public void releaseOwner(dev.idnode.v1.ReleaseOwnerRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ReleaseResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReleaseOwnerMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * GetClaims looks IDs up, or pages through the claims of a prefix, linearizably.
     * </pre>
     */
    public void getClaims(dev.idnode.v1.GetClaimsRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.GetClaimsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetClaimsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * NextHiLo reserves a range of numbers for a client-side HiLo generator.
     * </pre>
     */
    public void nextHiLo(dev.idnode.v1.NextHiLoRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.NextHiLoResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getNextHiLoMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ReturnHiLo gives back the unused tail of a range, only with its grant_id (NextHiLo
     * answers it), once, while it is the newest of its tag; a return without grant_id is
     * FAILED_PRECONDITION, one whose last is above its end INVALID_ARGUMENT.
     * </pre>
     */
    public void returnHiLo(dev.idnode.v1.ReturnHiLoRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ReturnHiLoResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReturnHiLoMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * SeedHiLo raises a tag's Max, so the next range starts above it (moving a collection from
     * RavenDB's Raven/Hilo/&lt;tag&gt; document or another store); it never lowers it. Without API keys
     * anyone may call it; with keys it needs an admin key of the database (or the admin token).
     * </pre>
     */
    public void seedHiLo(dev.idnode.v1.SeedHiLoRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.SeedHiLoResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSeedHiLoMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListHiLo lists a database's HiLo tags a page at a time, linearizably: each tag's Max and
     * floor, and each node's pool for it: how many numbers the cluster reserved to it so far
     * and, asked of the node itself, how many it holds now, the size it tops up to, and when
     * it was last topped up.
     * </pre>
     */
    public void listHiLo(dev.idnode.v1.ListHiLoRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ListHiLoResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListHiLoMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * AcquireWorker leases a worker ID for minting numeric IDs in-process (issue 27): mint at
     * times strictly above min_ms and up to max_ms, and stop before expires_at_ms unless renewed.
     * RESOURCE_EXHAUSTED when every worker of the layout is leased.
     * </pre>
     */
    public void acquireWorker(dev.idnode.v1.AcquireWorkerRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.WorkerLease> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAcquireWorkerMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * RenewWorker extends a worker lease; FAILED_PRECONDITION when the lease is not the worker's
     * current one any more (stop minting with it at once and acquire another).
     * </pre>
     */
    public void renewWorker(dev.idnode.v1.RenewWorkerRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.WorkerLease> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRenewWorkerMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ReleaseWorker ends a worker lease now, so the worker may go to another holder.
     * </pre>
     */
    public void releaseWorker(dev.idnode.v1.ReleaseWorkerRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ReleaseWorkerResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReleaseWorkerMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListWorkers pages through the database's workers, every one ever leased (lapsed or not),
     * by worker ID, linearizably.
     * </pre>
     */
    public void listWorkers(dev.idnode.v1.ListWorkersRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ListWorkersResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListWorkersMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Explain says what an ID is (numeric: its time, worker and sequence; a string: which
     * strategy minted it and its parts). It reads no state and is answered by any node.
     * </pre>
     */
    public void explain(dev.idnode.v1.ExplainRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ExplainResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getExplainMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * IdService hands out document IDs in the five strategies of DESIGN.md §1.
   * </pre>
   */
  public static final class IdServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<IdServiceBlockingStub> {
    private IdServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected IdServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new IdServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Generate resolves a request string: a semantic ID is validated and echoed, "" is a GUID,
     * "prefix/" is a server-side ID, "prefix|" is a cluster identity.
     * </pre>
     */
    public dev.idnode.v1.GenerateResponse generate(dev.idnode.v1.GenerateRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGenerateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * NextIdentity reserves count consecutive values of the identity counter name.
     * </pre>
     */
    public dev.idnode.v1.NextIdentityResponse nextIdentity(dev.idnode.v1.NextIdentityRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getNextIdentityMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * SeedIdentity raises (or with force, sets) an identity counter.
     * </pre>
     */
    public dev.idnode.v1.SeedIdentityResponse seedIdentity(dev.idnode.v1.SeedIdentityRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSeedIdentityMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListIdentities pages through every identity counter, linearizably.
     * </pre>
     */
    public dev.idnode.v1.ListIdentitiesResponse listIdentities(dev.idnode.v1.ListIdentitiesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListIdentitiesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Claim records semantic IDs as taken, cluster-wide, all or nothing: an ID already claimed
     * (compared case-insensitively) is ALREADY_EXISTS naming it and its owner. A claimed
     * "prefix/N" (the identity format) makes the identity "prefix|" skip N.
     * </pre>
     */
    public dev.idnode.v1.ClaimResponse claim(dev.idnode.v1.ClaimRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getClaimMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Release gives claimed IDs back, all or nothing; IDs not claimed are left alone.
     * </pre>
     */
    public dev.idnode.v1.ReleaseResponse release(dev.idnode.v1.ReleaseRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReleaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ReleaseOwner gives back every ID the owner claimed in the database. New in cluster
     * version 2: FAILED_PRECONDITION, naming the nodes on older builds, until it is finalised.
     * </pre>
     */
    public dev.idnode.v1.ReleaseResponse releaseOwner(dev.idnode.v1.ReleaseOwnerRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReleaseOwnerMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetClaims looks IDs up, or pages through the claims of a prefix, linearizably.
     * </pre>
     */
    public dev.idnode.v1.GetClaimsResponse getClaims(dev.idnode.v1.GetClaimsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetClaimsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * NextHiLo reserves a range of numbers for a client-side HiLo generator.
     * </pre>
     */
    public dev.idnode.v1.NextHiLoResponse nextHiLo(dev.idnode.v1.NextHiLoRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getNextHiLoMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ReturnHiLo gives back the unused tail of a range, only with its grant_id (NextHiLo
     * answers it), once, while it is the newest of its tag; a return without grant_id is
     * FAILED_PRECONDITION, one whose last is above its end INVALID_ARGUMENT.
     * </pre>
     */
    public dev.idnode.v1.ReturnHiLoResponse returnHiLo(dev.idnode.v1.ReturnHiLoRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReturnHiLoMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * SeedHiLo raises a tag's Max, so the next range starts above it (moving a collection from
     * RavenDB's Raven/Hilo/&lt;tag&gt; document or another store); it never lowers it. Without API keys
     * anyone may call it; with keys it needs an admin key of the database (or the admin token).
     * </pre>
     */
    public dev.idnode.v1.SeedHiLoResponse seedHiLo(dev.idnode.v1.SeedHiLoRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSeedHiLoMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListHiLo lists a database's HiLo tags a page at a time, linearizably: each tag's Max and
     * floor, and each node's pool for it: how many numbers the cluster reserved to it so far
     * and, asked of the node itself, how many it holds now, the size it tops up to, and when
     * it was last topped up.
     * </pre>
     */
    public dev.idnode.v1.ListHiLoResponse listHiLo(dev.idnode.v1.ListHiLoRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListHiLoMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * AcquireWorker leases a worker ID for minting numeric IDs in-process (issue 27): mint at
     * times strictly above min_ms and up to max_ms, and stop before expires_at_ms unless renewed.
     * RESOURCE_EXHAUSTED when every worker of the layout is leased.
     * </pre>
     */
    public dev.idnode.v1.WorkerLease acquireWorker(dev.idnode.v1.AcquireWorkerRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAcquireWorkerMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RenewWorker extends a worker lease; FAILED_PRECONDITION when the lease is not the worker's
     * current one any more (stop minting with it at once and acquire another).
     * </pre>
     */
    public dev.idnode.v1.WorkerLease renewWorker(dev.idnode.v1.RenewWorkerRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRenewWorkerMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ReleaseWorker ends a worker lease now, so the worker may go to another holder.
     * </pre>
     */
    public dev.idnode.v1.ReleaseWorkerResponse releaseWorker(dev.idnode.v1.ReleaseWorkerRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReleaseWorkerMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListWorkers pages through the database's workers, every one ever leased (lapsed or not),
     * by worker ID, linearizably.
     * </pre>
     */
    public dev.idnode.v1.ListWorkersResponse listWorkers(dev.idnode.v1.ListWorkersRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListWorkersMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Explain says what an ID is (numeric: its time, worker and sequence; a string: which
     * strategy minted it and its parts). It reads no state and is answered by any node.
     * </pre>
     */
    public dev.idnode.v1.ExplainResponse explain(dev.idnode.v1.ExplainRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getExplainMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * IdService hands out document IDs in the five strategies of DESIGN.md §1.
   * </pre>
   */
  public static final class IdServiceFutureStub extends io.grpc.stub.AbstractFutureStub<IdServiceFutureStub> {
    private IdServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected IdServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new IdServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Generate resolves a request string: a semantic ID is validated and echoed, "" is a GUID,
     * "prefix/" is a server-side ID, "prefix|" is a cluster identity.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.GenerateResponse> generate(
        dev.idnode.v1.GenerateRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGenerateMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * NextIdentity reserves count consecutive values of the identity counter name.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.NextIdentityResponse> nextIdentity(
        dev.idnode.v1.NextIdentityRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getNextIdentityMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * SeedIdentity raises (or with force, sets) an identity counter.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.SeedIdentityResponse> seedIdentity(
        dev.idnode.v1.SeedIdentityRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSeedIdentityMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListIdentities pages through every identity counter, linearizably.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.ListIdentitiesResponse> listIdentities(
        dev.idnode.v1.ListIdentitiesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListIdentitiesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Claim records semantic IDs as taken, cluster-wide, all or nothing: an ID already claimed
     * (compared case-insensitively) is ALREADY_EXISTS naming it and its owner. A claimed
     * "prefix/N" (the identity format) makes the identity "prefix|" skip N.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.ClaimResponse> claim(
        dev.idnode.v1.ClaimRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getClaimMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Release gives claimed IDs back, all or nothing; IDs not claimed are left alone.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.ReleaseResponse> release(
        dev.idnode.v1.ReleaseRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReleaseMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ReleaseOwner gives back every ID the owner claimed in the database. New in cluster
     * version 2: FAILED_PRECONDITION, naming the nodes on older builds, until it is finalised.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.ReleaseResponse> releaseOwner(
        dev.idnode.v1.ReleaseOwnerRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReleaseOwnerMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * GetClaims looks IDs up, or pages through the claims of a prefix, linearizably.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.GetClaimsResponse> getClaims(
        dev.idnode.v1.GetClaimsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetClaimsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * NextHiLo reserves a range of numbers for a client-side HiLo generator.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.NextHiLoResponse> nextHiLo(
        dev.idnode.v1.NextHiLoRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getNextHiLoMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ReturnHiLo gives back the unused tail of a range, only with its grant_id (NextHiLo
     * answers it), once, while it is the newest of its tag; a return without grant_id is
     * FAILED_PRECONDITION, one whose last is above its end INVALID_ARGUMENT.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.ReturnHiLoResponse> returnHiLo(
        dev.idnode.v1.ReturnHiLoRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReturnHiLoMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * SeedHiLo raises a tag's Max, so the next range starts above it (moving a collection from
     * RavenDB's Raven/Hilo/&lt;tag&gt; document or another store); it never lowers it. Without API keys
     * anyone may call it; with keys it needs an admin key of the database (or the admin token).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.SeedHiLoResponse> seedHiLo(
        dev.idnode.v1.SeedHiLoRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSeedHiLoMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListHiLo lists a database's HiLo tags a page at a time, linearizably: each tag's Max and
     * floor, and each node's pool for it: how many numbers the cluster reserved to it so far
     * and, asked of the node itself, how many it holds now, the size it tops up to, and when
     * it was last topped up.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.ListHiLoResponse> listHiLo(
        dev.idnode.v1.ListHiLoRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListHiLoMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * AcquireWorker leases a worker ID for minting numeric IDs in-process (issue 27): mint at
     * times strictly above min_ms and up to max_ms, and stop before expires_at_ms unless renewed.
     * RESOURCE_EXHAUSTED when every worker of the layout is leased.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.WorkerLease> acquireWorker(
        dev.idnode.v1.AcquireWorkerRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAcquireWorkerMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * RenewWorker extends a worker lease; FAILED_PRECONDITION when the lease is not the worker's
     * current one any more (stop minting with it at once and acquire another).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.WorkerLease> renewWorker(
        dev.idnode.v1.RenewWorkerRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRenewWorkerMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ReleaseWorker ends a worker lease now, so the worker may go to another holder.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.ReleaseWorkerResponse> releaseWorker(
        dev.idnode.v1.ReleaseWorkerRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReleaseWorkerMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListWorkers pages through the database's workers, every one ever leased (lapsed or not),
     * by worker ID, linearizably.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.ListWorkersResponse> listWorkers(
        dev.idnode.v1.ListWorkersRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListWorkersMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Explain says what an ID is (numeric: its time, worker and sequence; a string: which
     * strategy minted it and its parts). It reads no state and is answered by any node.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.ExplainResponse> explain(
        dev.idnode.v1.ExplainRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getExplainMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_GENERATE = 0;
  private static final int METHODID_NEXT_IDENTITY = 1;
  private static final int METHODID_SEED_IDENTITY = 2;
  private static final int METHODID_LIST_IDENTITIES = 3;
  private static final int METHODID_CLAIM = 4;
  private static final int METHODID_RELEASE = 5;
  private static final int METHODID_RELEASE_OWNER = 6;
  private static final int METHODID_GET_CLAIMS = 7;
  private static final int METHODID_NEXT_HI_LO = 8;
  private static final int METHODID_RETURN_HI_LO = 9;
  private static final int METHODID_SEED_HI_LO = 10;
  private static final int METHODID_LIST_HI_LO = 11;
  private static final int METHODID_ACQUIRE_WORKER = 12;
  private static final int METHODID_RENEW_WORKER = 13;
  private static final int METHODID_RELEASE_WORKER = 14;
  private static final int METHODID_LIST_WORKERS = 15;
  private static final int METHODID_EXPLAIN = 16;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final IdServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(IdServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_GENERATE:
          serviceImpl.generate((dev.idnode.v1.GenerateRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.GenerateResponse>) responseObserver);
          break;
        case METHODID_NEXT_IDENTITY:
          serviceImpl.nextIdentity((dev.idnode.v1.NextIdentityRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.NextIdentityResponse>) responseObserver);
          break;
        case METHODID_SEED_IDENTITY:
          serviceImpl.seedIdentity((dev.idnode.v1.SeedIdentityRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.SeedIdentityResponse>) responseObserver);
          break;
        case METHODID_LIST_IDENTITIES:
          serviceImpl.listIdentities((dev.idnode.v1.ListIdentitiesRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.ListIdentitiesResponse>) responseObserver);
          break;
        case METHODID_CLAIM:
          serviceImpl.claim((dev.idnode.v1.ClaimRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.ClaimResponse>) responseObserver);
          break;
        case METHODID_RELEASE:
          serviceImpl.release((dev.idnode.v1.ReleaseRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.ReleaseResponse>) responseObserver);
          break;
        case METHODID_RELEASE_OWNER:
          serviceImpl.releaseOwner((dev.idnode.v1.ReleaseOwnerRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.ReleaseResponse>) responseObserver);
          break;
        case METHODID_GET_CLAIMS:
          serviceImpl.getClaims((dev.idnode.v1.GetClaimsRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.GetClaimsResponse>) responseObserver);
          break;
        case METHODID_NEXT_HI_LO:
          serviceImpl.nextHiLo((dev.idnode.v1.NextHiLoRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.NextHiLoResponse>) responseObserver);
          break;
        case METHODID_RETURN_HI_LO:
          serviceImpl.returnHiLo((dev.idnode.v1.ReturnHiLoRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.ReturnHiLoResponse>) responseObserver);
          break;
        case METHODID_SEED_HI_LO:
          serviceImpl.seedHiLo((dev.idnode.v1.SeedHiLoRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.SeedHiLoResponse>) responseObserver);
          break;
        case METHODID_LIST_HI_LO:
          serviceImpl.listHiLo((dev.idnode.v1.ListHiLoRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.ListHiLoResponse>) responseObserver);
          break;
        case METHODID_ACQUIRE_WORKER:
          serviceImpl.acquireWorker((dev.idnode.v1.AcquireWorkerRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.WorkerLease>) responseObserver);
          break;
        case METHODID_RENEW_WORKER:
          serviceImpl.renewWorker((dev.idnode.v1.RenewWorkerRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.WorkerLease>) responseObserver);
          break;
        case METHODID_RELEASE_WORKER:
          serviceImpl.releaseWorker((dev.idnode.v1.ReleaseWorkerRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.ReleaseWorkerResponse>) responseObserver);
          break;
        case METHODID_LIST_WORKERS:
          serviceImpl.listWorkers((dev.idnode.v1.ListWorkersRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.ListWorkersResponse>) responseObserver);
          break;
        case METHODID_EXPLAIN:
          serviceImpl.explain((dev.idnode.v1.ExplainRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.ExplainResponse>) responseObserver);
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

  private static abstract class IdServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    IdServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.idnode.v1.Idnode.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("IdService");
    }
  }

  private static final class IdServiceFileDescriptorSupplier
      extends IdServiceBaseDescriptorSupplier {
    IdServiceFileDescriptorSupplier() {}
  }

  private static final class IdServiceMethodDescriptorSupplier
      extends IdServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    IdServiceMethodDescriptorSupplier(String methodName) {
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
      synchronized (IdServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new IdServiceFileDescriptorSupplier())
              .addMethod(getGenerateMethod())
              .addMethod(getNextIdentityMethod())
              .addMethod(getSeedIdentityMethod())
              .addMethod(getListIdentitiesMethod())
              .addMethod(getClaimMethod())
              .addMethod(getReleaseMethod())
              .addMethod(getReleaseOwnerMethod())
              .addMethod(getGetClaimsMethod())
              .addMethod(getNextHiLoMethod())
              .addMethod(getReturnHiLoMethod())
              .addMethod(getSeedHiLoMethod())
              .addMethod(getListHiLoMethod())
              .addMethod(getAcquireWorkerMethod())
              .addMethod(getRenewWorkerMethod())
              .addMethod(getReleaseWorkerMethod())
              .addMethod(getListWorkersMethod())
              .addMethod(getExplainMethod())
              .build();
        }
      }
    }
    return result;
  }
}
