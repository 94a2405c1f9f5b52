package dev.idnode.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * ClusterService reports and changes the cluster's membership.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: idnode/v1/idnode.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class ClusterServiceGrpc {

  private ClusterServiceGrpc() {}

  public static final String SERVICE_NAME = "idnode.v1.ClusterService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.StatusRequest,
      dev.idnode.v1.StatusResponse> getStatusMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Status",
      requestType = dev.idnode.v1.StatusRequest.class,
      responseType = dev.idnode.v1.StatusResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.StatusRequest,
      dev.idnode.v1.StatusResponse> getStatusMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.StatusRequest, dev.idnode.v1.StatusResponse> getStatusMethod;
    if ((getStatusMethod = ClusterServiceGrpc.getStatusMethod) == null) {
      synchronized (ClusterServiceGrpc.class) {
        if ((getStatusMethod = ClusterServiceGrpc.getStatusMethod) == null) {
          ClusterServiceGrpc.getStatusMethod = getStatusMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.StatusRequest, dev.idnode.v1.StatusResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Status"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.StatusRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.StatusResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ClusterServiceMethodDescriptorSupplier("Status"))
              .build();
        }
      }
    }
    return getStatusMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.AddNodeRequest,
      dev.idnode.v1.AddNodeResponse> getAddNodeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AddNode",
      requestType = dev.idnode.v1.AddNodeRequest.class,
      responseType = dev.idnode.v1.AddNodeResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.AddNodeRequest,
      dev.idnode.v1.AddNodeResponse> getAddNodeMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.AddNodeRequest, dev.idnode.v1.AddNodeResponse> getAddNodeMethod;
    if ((getAddNodeMethod = ClusterServiceGrpc.getAddNodeMethod) == null) {
      synchronized (ClusterServiceGrpc.class) {
        if ((getAddNodeMethod = ClusterServiceGrpc.getAddNodeMethod) == null) {
          ClusterServiceGrpc.getAddNodeMethod = getAddNodeMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.AddNodeRequest, dev.idnode.v1.AddNodeResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AddNode"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.AddNodeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.AddNodeResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ClusterServiceMethodDescriptorSupplier("AddNode"))
              .build();
        }
      }
    }
    return getAddNodeMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.RemoveNodeRequest,
      dev.idnode.v1.RemoveNodeResponse> getRemoveNodeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RemoveNode",
      requestType = dev.idnode.v1.RemoveNodeRequest.class,
      responseType = dev.idnode.v1.RemoveNodeResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.RemoveNodeRequest,
      dev.idnode.v1.RemoveNodeResponse> getRemoveNodeMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.RemoveNodeRequest, dev.idnode.v1.RemoveNodeResponse> getRemoveNodeMethod;
    if ((getRemoveNodeMethod = ClusterServiceGrpc.getRemoveNodeMethod) == null) {
      synchronized (ClusterServiceGrpc.class) {
        if ((getRemoveNodeMethod = ClusterServiceGrpc.getRemoveNodeMethod) == null) {
          ClusterServiceGrpc.getRemoveNodeMethod = getRemoveNodeMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.RemoveNodeRequest, dev.idnode.v1.RemoveNodeResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RemoveNode"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.RemoveNodeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.RemoveNodeResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ClusterServiceMethodDescriptorSupplier("RemoveNode"))
              .build();
        }
      }
    }
    return getRemoveNodeMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.TransferLeadershipRequest,
      dev.idnode.v1.TransferLeadershipResponse> getTransferLeadershipMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "TransferLeadership",
      requestType = dev.idnode.v1.TransferLeadershipRequest.class,
      responseType = dev.idnode.v1.TransferLeadershipResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.TransferLeadershipRequest,
      dev.idnode.v1.TransferLeadershipResponse> getTransferLeadershipMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.TransferLeadershipRequest, dev.idnode.v1.TransferLeadershipResponse> getTransferLeadershipMethod;
    if ((getTransferLeadershipMethod = ClusterServiceGrpc.getTransferLeadershipMethod) == null) {
      synchronized (ClusterServiceGrpc.class) {
        if ((getTransferLeadershipMethod = ClusterServiceGrpc.getTransferLeadershipMethod) == null) {
          ClusterServiceGrpc.getTransferLeadershipMethod = getTransferLeadershipMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.TransferLeadershipRequest, dev.idnode.v1.TransferLeadershipResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "TransferLeadership"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.TransferLeadershipRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.TransferLeadershipResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ClusterServiceMethodDescriptorSupplier("TransferLeadership"))
              .build();
        }
      }
    }
    return getTransferLeadershipMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.BackupRequest,
      dev.idnode.v1.BackupChunk> getBackupMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Backup",
      requestType = dev.idnode.v1.BackupRequest.class,
      responseType = dev.idnode.v1.BackupChunk.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.BackupRequest,
      dev.idnode.v1.BackupChunk> getBackupMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.BackupRequest, dev.idnode.v1.BackupChunk> getBackupMethod;
    if ((getBackupMethod = ClusterServiceGrpc.getBackupMethod) == null) {
      synchronized (ClusterServiceGrpc.class) {
        if ((getBackupMethod = ClusterServiceGrpc.getBackupMethod) == null) {
          ClusterServiceGrpc.getBackupMethod = getBackupMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.BackupRequest, dev.idnode.v1.BackupChunk>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Backup"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.BackupRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.BackupChunk.getDefaultInstance()))
              .setSchemaDescriptor(new ClusterServiceMethodDescriptorSupplier("Backup"))
              .build();
        }
      }
    }
    return getBackupMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.RestoreChunk,
      dev.idnode.v1.RestoreResponse> getRestoreMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Restore",
      requestType = dev.idnode.v1.RestoreChunk.class,
      responseType = dev.idnode.v1.RestoreResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.CLIENT_STREAMING)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.RestoreChunk,
      dev.idnode.v1.RestoreResponse> getRestoreMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.RestoreChunk, dev.idnode.v1.RestoreResponse> getRestoreMethod;
    if ((getRestoreMethod = ClusterServiceGrpc.getRestoreMethod) == null) {
      synchronized (ClusterServiceGrpc.class) {
        if ((getRestoreMethod = ClusterServiceGrpc.getRestoreMethod) == null) {
          ClusterServiceGrpc.getRestoreMethod = getRestoreMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.RestoreChunk, dev.idnode.v1.RestoreResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.CLIENT_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Restore"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.RestoreChunk.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.RestoreResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ClusterServiceMethodDescriptorSupplier("Restore"))
              .build();
        }
      }
    }
    return getRestoreMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.CreateDatabaseRequest,
      dev.idnode.v1.CreateDatabaseResponse> getCreateDatabaseMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateDatabase",
      requestType = dev.idnode.v1.CreateDatabaseRequest.class,
      responseType = dev.idnode.v1.CreateDatabaseResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.CreateDatabaseRequest,
      dev.idnode.v1.CreateDatabaseResponse> getCreateDatabaseMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.CreateDatabaseRequest, dev.idnode.v1.CreateDatabaseResponse> getCreateDatabaseMethod;
    if ((getCreateDatabaseMethod = ClusterServiceGrpc.getCreateDatabaseMethod) == null) {
      synchronized (ClusterServiceGrpc.class) {
        if ((getCreateDatabaseMethod = ClusterServiceGrpc.getCreateDatabaseMethod) == null) {
          ClusterServiceGrpc.getCreateDatabaseMethod = getCreateDatabaseMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.CreateDatabaseRequest, dev.idnode.v1.CreateDatabaseResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateDatabase"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.CreateDatabaseRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.CreateDatabaseResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ClusterServiceMethodDescriptorSupplier("CreateDatabase"))
              .build();
        }
      }
    }
    return getCreateDatabaseMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.DeleteDatabaseRequest,
      dev.idnode.v1.DeleteDatabaseResponse> getDeleteDatabaseMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteDatabase",
      requestType = dev.idnode.v1.DeleteDatabaseRequest.class,
      responseType = dev.idnode.v1.DeleteDatabaseResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.DeleteDatabaseRequest,
      dev.idnode.v1.DeleteDatabaseResponse> getDeleteDatabaseMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.DeleteDatabaseRequest, dev.idnode.v1.DeleteDatabaseResponse> getDeleteDatabaseMethod;
    if ((getDeleteDatabaseMethod = ClusterServiceGrpc.getDeleteDatabaseMethod) == null) {
      synchronized (ClusterServiceGrpc.class) {
        if ((getDeleteDatabaseMethod = ClusterServiceGrpc.getDeleteDatabaseMethod) == null) {
          ClusterServiceGrpc.getDeleteDatabaseMethod = getDeleteDatabaseMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.DeleteDatabaseRequest, dev.idnode.v1.DeleteDatabaseResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteDatabase"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.DeleteDatabaseRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.DeleteDatabaseResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ClusterServiceMethodDescriptorSupplier("DeleteDatabase"))
              .build();
        }
      }
    }
    return getDeleteDatabaseMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.ListDatabasesRequest,
      dev.idnode.v1.ListDatabasesResponse> getListDatabasesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListDatabases",
      requestType = dev.idnode.v1.ListDatabasesRequest.class,
      responseType = dev.idnode.v1.ListDatabasesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.ListDatabasesRequest,
      dev.idnode.v1.ListDatabasesResponse> getListDatabasesMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.ListDatabasesRequest, dev.idnode.v1.ListDatabasesResponse> getListDatabasesMethod;
    if ((getListDatabasesMethod = ClusterServiceGrpc.getListDatabasesMethod) == null) {
      synchronized (ClusterServiceGrpc.class) {
        if ((getListDatabasesMethod = ClusterServiceGrpc.getListDatabasesMethod) == null) {
          ClusterServiceGrpc.getListDatabasesMethod = getListDatabasesMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.ListDatabasesRequest, dev.idnode.v1.ListDatabasesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListDatabases"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ListDatabasesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ListDatabasesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ClusterServiceMethodDescriptorSupplier("ListDatabases"))
              .build();
        }
      }
    }
    return getListDatabasesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.CreateKeyRequest,
      dev.idnode.v1.CreateKeyResponse> getCreateKeyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateKey",
      requestType = dev.idnode.v1.CreateKeyRequest.class,
      responseType = dev.idnode.v1.CreateKeyResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.CreateKeyRequest,
      dev.idnode.v1.CreateKeyResponse> getCreateKeyMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.CreateKeyRequest, dev.idnode.v1.CreateKeyResponse> getCreateKeyMethod;
    if ((getCreateKeyMethod = ClusterServiceGrpc.getCreateKeyMethod) == null) {
      synchronized (ClusterServiceGrpc.class) {
        if ((getCreateKeyMethod = ClusterServiceGrpc.getCreateKeyMethod) == null) {
          ClusterServiceGrpc.getCreateKeyMethod = getCreateKeyMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.CreateKeyRequest, dev.idnode.v1.CreateKeyResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateKey"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.CreateKeyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.CreateKeyResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ClusterServiceMethodDescriptorSupplier("CreateKey"))
              .build();
        }
      }
    }
    return getCreateKeyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.DeleteKeyRequest,
      dev.idnode.v1.DeleteKeyResponse> getDeleteKeyMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteKey",
      requestType = dev.idnode.v1.DeleteKeyRequest.class,
      responseType = dev.idnode.v1.DeleteKeyResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.DeleteKeyRequest,
      dev.idnode.v1.DeleteKeyResponse> getDeleteKeyMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.DeleteKeyRequest, dev.idnode.v1.DeleteKeyResponse> getDeleteKeyMethod;
    if ((getDeleteKeyMethod = ClusterServiceGrpc.getDeleteKeyMethod) == null) {
      synchronized (ClusterServiceGrpc.class) {
        if ((getDeleteKeyMethod = ClusterServiceGrpc.getDeleteKeyMethod) == null) {
          ClusterServiceGrpc.getDeleteKeyMethod = getDeleteKeyMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.DeleteKeyRequest, dev.idnode.v1.DeleteKeyResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteKey"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.DeleteKeyRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.DeleteKeyResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ClusterServiceMethodDescriptorSupplier("DeleteKey"))
              .build();
        }
      }
    }
    return getDeleteKeyMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.ListKeysRequest,
      dev.idnode.v1.ListKeysResponse> getListKeysMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListKeys",
      requestType = dev.idnode.v1.ListKeysRequest.class,
      responseType = dev.idnode.v1.ListKeysResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.ListKeysRequest,
      dev.idnode.v1.ListKeysResponse> getListKeysMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.ListKeysRequest, dev.idnode.v1.ListKeysResponse> getListKeysMethod;
    if ((getListKeysMethod = ClusterServiceGrpc.getListKeysMethod) == null) {
      synchronized (ClusterServiceGrpc.class) {
        if ((getListKeysMethod = ClusterServiceGrpc.getListKeysMethod) == null) {
          ClusterServiceGrpc.getListKeysMethod = getListKeysMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.ListKeysRequest, dev.idnode.v1.ListKeysResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListKeys"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ListKeysRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ListKeysResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ClusterServiceMethodDescriptorSupplier("ListKeys"))
              .build();
        }
      }
    }
    return getListKeysMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.WhoAmIRequest,
      dev.idnode.v1.WhoAmIResponse> getWhoAmIMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "WhoAmI",
      requestType = dev.idnode.v1.WhoAmIRequest.class,
      responseType = dev.idnode.v1.WhoAmIResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.WhoAmIRequest,
      dev.idnode.v1.WhoAmIResponse> getWhoAmIMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.WhoAmIRequest, dev.idnode.v1.WhoAmIResponse> getWhoAmIMethod;
    if ((getWhoAmIMethod = ClusterServiceGrpc.getWhoAmIMethod) == null) {
      synchronized (ClusterServiceGrpc.class) {
        if ((getWhoAmIMethod = ClusterServiceGrpc.getWhoAmIMethod) == null) {
          ClusterServiceGrpc.getWhoAmIMethod = getWhoAmIMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.WhoAmIRequest, dev.idnode.v1.WhoAmIResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "WhoAmI"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.WhoAmIRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.WhoAmIResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ClusterServiceMethodDescriptorSupplier("WhoAmI"))
              .build();
        }
      }
    }
    return getWhoAmIMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.ClusterVersionRequest,
      dev.idnode.v1.ClusterVersionResponse> getClusterVersionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ClusterVersion",
      requestType = dev.idnode.v1.ClusterVersionRequest.class,
      responseType = dev.idnode.v1.ClusterVersionResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.ClusterVersionRequest,
      dev.idnode.v1.ClusterVersionResponse> getClusterVersionMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.ClusterVersionRequest, dev.idnode.v1.ClusterVersionResponse> getClusterVersionMethod;
    if ((getClusterVersionMethod = ClusterServiceGrpc.getClusterVersionMethod) == null) {
      synchronized (ClusterServiceGrpc.class) {
        if ((getClusterVersionMethod = ClusterServiceGrpc.getClusterVersionMethod) == null) {
          ClusterServiceGrpc.getClusterVersionMethod = getClusterVersionMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.ClusterVersionRequest, dev.idnode.v1.ClusterVersionResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ClusterVersion"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ClusterVersionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ClusterVersionResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ClusterServiceMethodDescriptorSupplier("ClusterVersion"))
              .build();
        }
      }
    }
    return getClusterVersionMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.idnode.v1.SetClusterVersionRequest,
      dev.idnode.v1.ClusterVersionResponse> getSetClusterVersionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetClusterVersion",
      requestType = dev.idnode.v1.SetClusterVersionRequest.class,
      responseType = dev.idnode.v1.ClusterVersionResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.idnode.v1.SetClusterVersionRequest,
      dev.idnode.v1.ClusterVersionResponse> getSetClusterVersionMethod() {
    io.grpc.MethodDescriptor<dev.idnode.v1.SetClusterVersionRequest, dev.idnode.v1.ClusterVersionResponse> getSetClusterVersionMethod;
    if ((getSetClusterVersionMethod = ClusterServiceGrpc.getSetClusterVersionMethod) == null) {
      synchronized (ClusterServiceGrpc.class) {
        if ((getSetClusterVersionMethod = ClusterServiceGrpc.getSetClusterVersionMethod) == null) {
          ClusterServiceGrpc.getSetClusterVersionMethod = getSetClusterVersionMethod =
              io.grpc.MethodDescriptor.<dev.idnode.v1.SetClusterVersionRequest, dev.idnode.v1.ClusterVersionResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetClusterVersion"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.SetClusterVersionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.idnode.v1.ClusterVersionResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ClusterServiceMethodDescriptorSupplier("SetClusterVersion"))
              .build();
        }
      }
    }
    return getSetClusterVersionMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static ClusterServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<ClusterServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<ClusterServiceStub>() {
        @java.lang.Override
        public ClusterServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new ClusterServiceStub(channel, callOptions);
        }
      };
    return ClusterServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static ClusterServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<ClusterServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<ClusterServiceBlockingStub>() {
        @java.lang.Override
        public ClusterServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new ClusterServiceBlockingStub(channel, callOptions);
        }
      };
    return ClusterServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static ClusterServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<ClusterServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<ClusterServiceFutureStub>() {
        @java.lang.Override
        public ClusterServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new ClusterServiceFutureStub(channel, callOptions);
        }
      };
    return ClusterServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * ClusterService reports and changes the cluster's membership.
   * </pre>
   */
  public static abstract class ClusterServiceImplBase implements io.grpc.BindableService {

    /**
     */
    public void status(dev.idnode.v1.StatusRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.StatusResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getStatusMethod(), responseObserver);
    }

    /**
     * <pre>
     * AddNode registers a node's tag and addresses and makes it a Raft member; calling it again
     * with the same tag and id only refreshes the addresses. Nodes call it for themselves on
     * start (idnode --join, and to register their gRPC address).
     * </pre>
     */
    public void addNode(dev.idnode.v1.AddNodeRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.AddNodeResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAddNodeMethod(), responseObserver);
    }

    /**
     */
    public void removeNode(dev.idnode.v1.RemoveNodeRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.RemoveNodeResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRemoveNodeMethod(), responseObserver);
    }

    /**
     */
    public void transferLeadership(dev.idnode.v1.TransferLeadershipRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.TransferLeadershipResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getTransferLeadershipMethod(), responseObserver);
    }

    /**
     * <pre>
     * Backup streams a consistent snapshot of the replicated state (identities, HiLo maxima,
     * claims, node registry, retired tags, fiscal series journals), taken on the leader after a read barrier, in the FSM's own
     * snapshot format. An operator call: needs the admin token when one is set.
     * </pre>
     */
    public void backup(dev.idnode.v1.BackupRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.BackupChunk> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getBackupMethod(), responseObserver);
    }

    /**
     * <pre>
     * Restore raises this cluster's identity counters and HiLo maxima to at least a backup's and
     * retires every node tag the backup's cluster used, so no identity, HiLo number or
     * server-side ID the old cluster handed out is handed out again. It never lowers anything,
     * so it is safe to retry. Refused (FAILED_PRECONDITION) when a tag of the backup belongs to
     * a node of this cluster. Fiscal series come back with their journals, checked entry by
     * entry; a series that differs from this cluster's is refused (FAILED_PRECONDITION) after
     * the counters were raised. An operator call: needs the admin token when one is set.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<dev.idnode.v1.RestoreChunk> restore(
        io.grpc.stub.StreamObserver<dev.idnode.v1.RestoreResponse> responseObserver) {
      return io.grpc.stub.ServerCalls.asyncUnimplementedStreamingCall(getRestoreMethod(), responseObserver);
    }

    /**
     * <pre>
     * CreateDatabase creates a database: its own identities, HiLo tags and request ids. A name
     * that was deleted comes back with the counters it had, so it never repeats a value.
     * ALREADY_EXISTS when it exists. An admin call.
     * </pre>
     */
    public void createDatabase(dev.idnode.v1.CreateDatabaseRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.CreateDatabaseResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateDatabaseMethod(), responseObserver);
    }

    /**
     * <pre>
     * DeleteDatabase refuses every later call of the database (NOT_FOUND). FAILED_PRECONDITION
     * while it has counters, unless force; they stay as floors. An admin call.
     * </pre>
     */
    public void deleteDatabase(dev.idnode.v1.DeleteDatabaseRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.DeleteDatabaseResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteDatabaseMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListDatabases lists the databases, "default" among them, from the leader.
     * </pre>
     */
    public void listDatabases(dev.idnode.v1.ListDatabasesRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ListDatabasesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListDatabasesMethod(), responseObserver);
    }

    /**
     * <pre>
     * CreateKey makes an API key for one database and role and returns it, the only time it is
     * shown. Once a cluster has a key, IdService calls need one (or the admin token): see the
     * README. An admin call.
     * </pre>
     */
    public void createKey(dev.idnode.v1.CreateKeyRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.CreateKeyResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateKeyMethod(), responseObserver);
    }

    /**
     * <pre>
     * DeleteKey deletes an API key. An admin call.
     * </pre>
     */
    public void deleteKey(dev.idnode.v1.DeleteKeyRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.DeleteKeyResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteKeyMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListKeys lists the API keys: id, database and role, never the secret. An admin call.
     * </pre>
     */
    public void listKeys(dev.idnode.v1.ListKeysRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ListKeysResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListKeysMethod(), responseObserver);
    }

    /**
     * <pre>
     * WhoAmI says what the node makes of the caller's own credentials: whether it may make
     * admin calls and by what right, and which API key it sent. Anyone may ask; it tells a
     * caller only about itself. The web console hides the actions its caller may not take.
     * </pre>
     */
    public void whoAmI(dev.idnode.v1.WhoAmIRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.WhoAmIResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWhoAmIMethod(), responseObserver);
    }

    /**
     * <pre>
     * ClusterVersion reports the cluster version, from the leader: the version finalised (the
     * commands the leader may propose), what every member supports, and the lowest version a
     * downgrade may go to.
     * </pre>
     */
    public void clusterVersion(dev.idnode.v1.ClusterVersionRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ClusterVersionResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getClusterVersionMethod(), responseObserver);
    }

    /**
     * <pre>
     * SetClusterVersion finalises a higher version once every member runs a build that supports
     * it (FAILED_PRECONDITION naming those that do not, or do not answer), or lowers it while
     * no command of the higher version is in the log (FAILED_PRECONDITION after). An admin call.
     * </pre>
     */
    public void setClusterVersion(dev.idnode.v1.SetClusterVersionRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ClusterVersionResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetClusterVersionMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getStatusMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.StatusRequest,
                dev.idnode.v1.StatusResponse>(
                  this, METHODID_STATUS)))
          .addMethod(
            getAddNodeMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.AddNodeRequest,
                dev.idnode.v1.AddNodeResponse>(
                  this, METHODID_ADD_NODE)))
          .addMethod(
            getRemoveNodeMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.RemoveNodeRequest,
                dev.idnode.v1.RemoveNodeResponse>(
                  this, METHODID_REMOVE_NODE)))
          .addMethod(
            getTransferLeadershipMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.TransferLeadershipRequest,
                dev.idnode.v1.TransferLeadershipResponse>(
                  this, METHODID_TRANSFER_LEADERSHIP)))
          .addMethod(
            getBackupMethod(),
            io.grpc.stub.ServerCalls.asyncServerStreamingCall(
              new MethodHandlers<
                dev.idnode.v1.BackupRequest,
                dev.idnode.v1.BackupChunk>(
                  this, METHODID_BACKUP)))
          .addMethod(
            getRestoreMethod(),
            io.grpc.stub.ServerCalls.asyncClientStreamingCall(
              new MethodHandlers<
                dev.idnode.v1.RestoreChunk,
                dev.idnode.v1.RestoreResponse>(
                  this, METHODID_RESTORE)))
          .addMethod(
            getCreateDatabaseMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.CreateDatabaseRequest,
                dev.idnode.v1.CreateDatabaseResponse>(
                  this, METHODID_CREATE_DATABASE)))
          .addMethod(
            getDeleteDatabaseMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.DeleteDatabaseRequest,
                dev.idnode.v1.DeleteDatabaseResponse>(
                  this, METHODID_DELETE_DATABASE)))
          .addMethod(
            getListDatabasesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.ListDatabasesRequest,
                dev.idnode.v1.ListDatabasesResponse>(
                  this, METHODID_LIST_DATABASES)))
          .addMethod(
            getCreateKeyMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.CreateKeyRequest,
                dev.idnode.v1.CreateKeyResponse>(
                  this, METHODID_CREATE_KEY)))
          .addMethod(
            getDeleteKeyMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.DeleteKeyRequest,
                dev.idnode.v1.DeleteKeyResponse>(
                  this, METHODID_DELETE_KEY)))
          .addMethod(
            getListKeysMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.ListKeysRequest,
                dev.idnode.v1.ListKeysResponse>(
                  this, METHODID_LIST_KEYS)))
          .addMethod(
            getWhoAmIMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.WhoAmIRequest,
                dev.idnode.v1.WhoAmIResponse>(
                  this, METHODID_WHO_AM_I)))
          .addMethod(
            getClusterVersionMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.ClusterVersionRequest,
                dev.idnode.v1.ClusterVersionResponse>(
                  this, METHODID_CLUSTER_VERSION)))
          .addMethod(
            getSetClusterVersionMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.idnode.v1.SetClusterVersionRequest,
                dev.idnode.v1.ClusterVersionResponse>(
                  this, METHODID_SET_CLUSTER_VERSION)))
          .build();
    }
  }

  /**
   * <pre>
   * ClusterService reports and changes the cluster's membership.
   * </pre>
   */
  public static final class ClusterServiceStub extends io.grpc.stub.AbstractAsyncStub<ClusterServiceStub> {
    private ClusterServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected ClusterServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new ClusterServiceStub(channel, callOptions);
    }

    /**
     */
    public void status(dev.idnode.v1.StatusRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.StatusResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getStatusMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * AddNode registers a node's tag and addresses and makes it a Raft member; calling it again
     * with the same tag and id only refreshes the addresses. Nodes call it for themselves on
     * start (idnode --join, and to register their gRPC address).
     * </pre>
     */
    public void addNode(dev.idnode.v1.AddNodeRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.AddNodeResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAddNodeMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     */
    public void removeNode(dev.idnode.v1.RemoveNodeRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.RemoveNodeResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRemoveNodeMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     */
    public void transferLeadership(dev.idnode.v1.TransferLeadershipRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.TransferLeadershipResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getTransferLeadershipMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Backup streams a consistent snapshot of the replicated state (identities, HiLo maxima,
     * claims, node registry, retired tags, fiscal series journals), taken on the leader after a read barrier, in the FSM's own
     * snapshot format. An operator call: needs the admin token when one is set.
     * </pre>
     */
    public void backup(dev.idnode.v1.BackupRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.BackupChunk> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getBackupMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Restore raises this cluster's identity counters and HiLo maxima to at least a backup's and
     * retires every node tag the backup's cluster used, so no identity, HiLo number or
     * server-side ID the old cluster handed out is handed out again. It never lowers anything,
     * so it is safe to retry. Refused (FAILED_PRECONDITION) when a tag of the backup belongs to
     * a node of this cluster. Fiscal series come back with their journals, checked entry by
     * entry; a series that differs from this cluster's is refused (FAILED_PRECONDITION) after
     * the counters were raised. An operator call: needs the admin token when one is set.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<dev.idnode.v1.RestoreChunk> restore(
        io.grpc.stub.StreamObserver<dev.idnode.v1.RestoreResponse> responseObserver) {
      return io.grpc.stub.ClientCalls.asyncClientStreamingCall(
          getChannel().newCall(getRestoreMethod(), getCallOptions()), responseObserver);
    }

    /**
     * <pre>
     * CreateDatabase creates a database: its own identities, HiLo tags and request ids. A name
     * that was deleted comes back with the counters it had, so it never repeats a value.
     * ALREADY_EXISTS when it exists. An admin call.
     * </pre>
     */
    public void createDatabase(dev.idnode.v1.CreateDatabaseRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.CreateDatabaseResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateDatabaseMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * DeleteDatabase refuses every later call of the database (NOT_FOUND). FAILED_PRECONDITION
     * while it has counters, unless force; they stay as floors. An admin call.
     * </pre>
     */
    public void deleteDatabase(dev.idnode.v1.DeleteDatabaseRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.DeleteDatabaseResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteDatabaseMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListDatabases lists the databases, "default" among them, from the leader.
     * </pre>
     */
    public void listDatabases(dev.idnode.v1.ListDatabasesRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ListDatabasesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListDatabasesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * CreateKey makes an API key for one database and role and returns it, the only time it is
     * shown. Once a cluster has a key, IdService calls need one (or the admin token): see the
     * README. An admin call.
     * </pre>
     */
    public void createKey(dev.idnode.v1.CreateKeyRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.CreateKeyResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateKeyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * DeleteKey deletes an API key. An admin call.
     * </pre>
     */
    public void deleteKey(dev.idnode.v1.DeleteKeyRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.DeleteKeyResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteKeyMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListKeys lists the API keys: id, database and role, never the secret. An admin call.
     * </pre>
     */
    public void listKeys(dev.idnode.v1.ListKeysRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ListKeysResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListKeysMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * WhoAmI says what the node makes of the caller's own credentials: whether it may make
     * admin calls and by what right, and which API key it sent. Anyone may ask; it tells a
     * caller only about itself. The web console hides the actions its caller may not take.
     * </pre>
     */
    public void whoAmI(dev.idnode.v1.WhoAmIRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.WhoAmIResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getWhoAmIMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ClusterVersion reports the cluster version, from the leader: the version finalised (the
     * commands the leader may propose), what every member supports, and the lowest version a
     * downgrade may go to.
     * </pre>
     */
    public void clusterVersion(dev.idnode.v1.ClusterVersionRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ClusterVersionResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getClusterVersionMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * SetClusterVersion finalises a higher version once every member runs a build that supports
     * it (FAILED_PRECONDITION naming those that do not, or do not answer), or lowers it while
     * no command of the higher version is in the log (FAILED_PRECONDITION after). An admin call.
     * </pre>
     */
    public void setClusterVersion(dev.idnode.v1.SetClusterVersionRequest request,
        io.grpc.stub.StreamObserver<dev.idnode.v1.ClusterVersionResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetClusterVersionMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * ClusterService reports and changes the cluster's membership.
   * </pre>
   */
  public static final class ClusterServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<ClusterServiceBlockingStub> {
    private ClusterServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected ClusterServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new ClusterServiceBlockingStub(channel, callOptions);
    }

    /**
     */
    public dev.idnode.v1.StatusResponse status(dev.idnode.v1.StatusRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getStatusMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * AddNode registers a node's tag and addresses and makes it a Raft member; calling it again
     * with the same tag and id only refreshes the addresses. Nodes call it for themselves on
     * start (idnode --join, and to register their gRPC address).
     * </pre>
     */
    public dev.idnode.v1.AddNodeResponse addNode(dev.idnode.v1.AddNodeRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAddNodeMethod(), getCallOptions(), request);
    }

    /**
     */
    public dev.idnode.v1.RemoveNodeResponse removeNode(dev.idnode.v1.RemoveNodeRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRemoveNodeMethod(), getCallOptions(), request);
    }

    /**
     */
    public dev.idnode.v1.TransferLeadershipResponse transferLeadership(dev.idnode.v1.TransferLeadershipRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getTransferLeadershipMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Backup streams a consistent snapshot of the replicated state (identities, HiLo maxima,
     * claims, node registry, retired tags, fiscal series journals), taken on the leader after a read barrier, in the FSM's own
     * snapshot format. An operator call: needs the admin token when one is set.
     * </pre>
     */
    public java.util.Iterator<dev.idnode.v1.BackupChunk> backup(
        dev.idnode.v1.BackupRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getBackupMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * CreateDatabase creates a database: its own identities, HiLo tags and request ids. A name
     * that was deleted comes back with the counters it had, so it never repeats a value.
     * ALREADY_EXISTS when it exists. An admin call.
     * </pre>
     */
    public dev.idnode.v1.CreateDatabaseResponse createDatabase(dev.idnode.v1.CreateDatabaseRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateDatabaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * DeleteDatabase refuses every later call of the database (NOT_FOUND). FAILED_PRECONDITION
     * while it has counters, unless force; they stay as floors. An admin call.
     * </pre>
     */
    public dev.idnode.v1.DeleteDatabaseResponse deleteDatabase(dev.idnode.v1.DeleteDatabaseRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteDatabaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListDatabases lists the databases, "default" among them, from the leader.
     * </pre>
     */
    public dev.idnode.v1.ListDatabasesResponse listDatabases(dev.idnode.v1.ListDatabasesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListDatabasesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * CreateKey makes an API key for one database and role and returns it, the only time it is
     * shown. Once a cluster has a key, IdService calls need one (or the admin token): see the
     * README. An admin call.
     * </pre>
     */
    public dev.idnode.v1.CreateKeyResponse createKey(dev.idnode.v1.CreateKeyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateKeyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * DeleteKey deletes an API key. An admin call.
     * </pre>
     */
    public dev.idnode.v1.DeleteKeyResponse deleteKey(dev.idnode.v1.DeleteKeyRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteKeyMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListKeys lists the API keys: id, database and role, never the secret. An admin call.
     * </pre>
     */
    public dev.idnode.v1.ListKeysResponse listKeys(dev.idnode.v1.ListKeysRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListKeysMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * WhoAmI says what the node makes of the caller's own credentials: whether it may make
     * admin calls and by what right, and which API key it sent. Anyone may ask; it tells a
     * caller only about itself. The web console hides the actions its caller may not take.
     * </pre>
     */
    public dev.idnode.v1.WhoAmIResponse whoAmI(dev.idnode.v1.WhoAmIRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getWhoAmIMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ClusterVersion reports the cluster version, from the leader: the version finalised (the
     * commands the leader may propose), what every member supports, and the lowest version a
     * downgrade may go to.
     * </pre>
     */
    public dev.idnode.v1.ClusterVersionResponse clusterVersion(dev.idnode.v1.ClusterVersionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getClusterVersionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * SetClusterVersion finalises a higher version once every member runs a build that supports
     * it (FAILED_PRECONDITION naming those that do not, or do not answer), or lowers it while
     * no command of the higher version is in the log (FAILED_PRECONDITION after). An admin call.
     * </pre>
     */
    public dev.idnode.v1.ClusterVersionResponse setClusterVersion(dev.idnode.v1.SetClusterVersionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetClusterVersionMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * ClusterService reports and changes the cluster's membership.
   * </pre>
   */
  public static final class ClusterServiceFutureStub extends io.grpc.stub.AbstractFutureStub<ClusterServiceFutureStub> {
    private ClusterServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected ClusterServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new ClusterServiceFutureStub(channel, callOptions);
    }

    /**
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.StatusResponse> status(
        dev.idnode.v1.StatusRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getStatusMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * AddNode registers a node's tag and addresses and makes it a Raft member; calling it again
     * with the same tag and id only refreshes the addresses. Nodes call it for themselves on
     * start (idnode --join, and to register their gRPC address).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.AddNodeResponse> addNode(
        dev.idnode.v1.AddNodeRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAddNodeMethod(), getCallOptions()), request);
    }

    /**
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.RemoveNodeResponse> removeNode(
        dev.idnode.v1.RemoveNodeRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRemoveNodeMethod(), getCallOptions()), request);
    }

    /**
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.TransferLeadershipResponse> transferLeadership(
        dev.idnode.v1.TransferLeadershipRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getTransferLeadershipMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * CreateDatabase creates a database: its own identities, HiLo tags and request ids. A name
     * that was deleted comes back with the counters it had, so it never repeats a value.
     * ALREADY_EXISTS when it exists. An admin call.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.CreateDatabaseResponse> createDatabase(
        dev.idnode.v1.CreateDatabaseRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateDatabaseMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * DeleteDatabase refuses every later call of the database (NOT_FOUND). FAILED_PRECONDITION
     * while it has counters, unless force; they stay as floors. An admin call.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.DeleteDatabaseResponse> deleteDatabase(
        dev.idnode.v1.DeleteDatabaseRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteDatabaseMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListDatabases lists the databases, "default" among them, from the leader.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.ListDatabasesResponse> listDatabases(
        dev.idnode.v1.ListDatabasesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListDatabasesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * CreateKey makes an API key for one database and role and returns it, the only time it is
     * shown. Once a cluster has a key, IdService calls need one (or the admin token): see the
     * README. An admin call.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.CreateKeyResponse> createKey(
        dev.idnode.v1.CreateKeyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateKeyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * DeleteKey deletes an API key. An admin call.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.DeleteKeyResponse> deleteKey(
        dev.idnode.v1.DeleteKeyRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteKeyMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListKeys lists the API keys: id, database and role, never the secret. An admin call.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.ListKeysResponse> listKeys(
        dev.idnode.v1.ListKeysRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListKeysMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * WhoAmI says what the node makes of the caller's own credentials: whether it may make
     * admin calls and by what right, and which API key it sent. Anyone may ask; it tells a
     * caller only about itself. The web console hides the actions its caller may not take.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.WhoAmIResponse> whoAmI(
        dev.idnode.v1.WhoAmIRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getWhoAmIMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ClusterVersion reports the cluster version, from the leader: the version finalised (the
     * commands the leader may propose), what every member supports, and the lowest version a
     * downgrade may go to.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.ClusterVersionResponse> clusterVersion(
        dev.idnode.v1.ClusterVersionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getClusterVersionMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * SetClusterVersion finalises a higher version once every member runs a build that supports
     * it (FAILED_PRECONDITION naming those that do not, or do not answer), or lowers it while
     * no command of the higher version is in the log (FAILED_PRECONDITION after). An admin call.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.idnode.v1.ClusterVersionResponse> setClusterVersion(
        dev.idnode.v1.SetClusterVersionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetClusterVersionMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_STATUS = 0;
  private static final int METHODID_ADD_NODE = 1;
  private static final int METHODID_REMOVE_NODE = 2;
  private static final int METHODID_TRANSFER_LEADERSHIP = 3;
  private static final int METHODID_BACKUP = 4;
  private static final int METHODID_CREATE_DATABASE = 5;
  private static final int METHODID_DELETE_DATABASE = 6;
  private static final int METHODID_LIST_DATABASES = 7;
  private static final int METHODID_CREATE_KEY = 8;
  private static final int METHODID_DELETE_KEY = 9;
  private static final int METHODID_LIST_KEYS = 10;
  private static final int METHODID_WHO_AM_I = 11;
  private static final int METHODID_CLUSTER_VERSION = 12;
  private static final int METHODID_SET_CLUSTER_VERSION = 13;
  private static final int METHODID_RESTORE = 14;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final ClusterServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(ClusterServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_STATUS:
          serviceImpl.status((dev.idnode.v1.StatusRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.StatusResponse>) responseObserver);
          break;
        case METHODID_ADD_NODE:
          serviceImpl.addNode((dev.idnode.v1.AddNodeRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.AddNodeResponse>) responseObserver);
          break;
        case METHODID_REMOVE_NODE:
          serviceImpl.removeNode((dev.idnode.v1.RemoveNodeRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.RemoveNodeResponse>) responseObserver);
          break;
        case METHODID_TRANSFER_LEADERSHIP:
          serviceImpl.transferLeadership((dev.idnode.v1.TransferLeadershipRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.TransferLeadershipResponse>) responseObserver);
          break;
        case METHODID_BACKUP:
          serviceImpl.backup((dev.idnode.v1.BackupRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.BackupChunk>) responseObserver);
          break;
        case METHODID_CREATE_DATABASE:
          serviceImpl.createDatabase((dev.idnode.v1.CreateDatabaseRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.CreateDatabaseResponse>) responseObserver);
          break;
        case METHODID_DELETE_DATABASE:
          serviceImpl.deleteDatabase((dev.idnode.v1.DeleteDatabaseRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.DeleteDatabaseResponse>) responseObserver);
          break;
        case METHODID_LIST_DATABASES:
          serviceImpl.listDatabases((dev.idnode.v1.ListDatabasesRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.ListDatabasesResponse>) responseObserver);
          break;
        case METHODID_CREATE_KEY:
          serviceImpl.createKey((dev.idnode.v1.CreateKeyRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.CreateKeyResponse>) responseObserver);
          break;
        case METHODID_DELETE_KEY:
          serviceImpl.deleteKey((dev.idnode.v1.DeleteKeyRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.DeleteKeyResponse>) responseObserver);
          break;
        case METHODID_LIST_KEYS:
          serviceImpl.listKeys((dev.idnode.v1.ListKeysRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.ListKeysResponse>) responseObserver);
          break;
        case METHODID_WHO_AM_I:
          serviceImpl.whoAmI((dev.idnode.v1.WhoAmIRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.WhoAmIResponse>) responseObserver);
          break;
        case METHODID_CLUSTER_VERSION:
          serviceImpl.clusterVersion((dev.idnode.v1.ClusterVersionRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.ClusterVersionResponse>) responseObserver);
          break;
        case METHODID_SET_CLUSTER_VERSION:
          serviceImpl.setClusterVersion((dev.idnode.v1.SetClusterVersionRequest) request,
              (io.grpc.stub.StreamObserver<dev.idnode.v1.ClusterVersionResponse>) responseObserver);
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
        case METHODID_RESTORE:
          return (io.grpc.stub.StreamObserver<Req>) serviceImpl.restore(
              (io.grpc.stub.StreamObserver<dev.idnode.v1.RestoreResponse>) responseObserver);
        default:
          throw new AssertionError();
      }
    }
  }

  private static abstract class ClusterServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    ClusterServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.idnode.v1.Idnode.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("ClusterService");
    }
  }

  private static final class ClusterServiceFileDescriptorSupplier
      extends ClusterServiceBaseDescriptorSupplier {
    ClusterServiceFileDescriptorSupplier() {}
  }

  private static final class ClusterServiceMethodDescriptorSupplier
      extends ClusterServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    ClusterServiceMethodDescriptorSupplier(String methodName) {
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
      synchronized (ClusterServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new ClusterServiceFileDescriptorSupplier())
              .addMethod(getStatusMethod())
              .addMethod(getAddNodeMethod())
              .addMethod(getRemoveNodeMethod())
              .addMethod(getTransferLeadershipMethod())
              .addMethod(getBackupMethod())
              .addMethod(getRestoreMethod())
              .addMethod(getCreateDatabaseMethod())
              .addMethod(getDeleteDatabaseMethod())
              .addMethod(getListDatabasesMethod())
              .addMethod(getCreateKeyMethod())
              .addMethod(getDeleteKeyMethod())
              .addMethod(getListKeysMethod())
              .addMethod(getWhoAmIMethod())
              .addMethod(getClusterVersionMethod())
              .addMethod(getSetClusterVersionMethod())
              .build();
        }
      }
    }
    return result;
  }
}
