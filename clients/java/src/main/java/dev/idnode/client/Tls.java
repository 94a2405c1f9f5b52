package dev.idnode.client;

import io.grpc.ChannelCredentials;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettySslContextChannelCredentials;
import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * The TLS credentials of a client: a netty {@link SslContext} that negotiates HTTP/2 by ALPN,
 * which gRPC over TLS needs, with whichever provider this JVM has. grpc-java's own choice comes
 * first (OpenSSL when netty-tcnative loads, else the JDK's ALPN); where the JDK route is
 * missing from netty (Debian's libnetty-java strips netty's JDK ALPN negotiator), the JDK 9+
 * SSLEngine's own ALPN is wired in by {@link JdkAlpnSslContext}.
 */
final class Tls {
  private Tls() {}

  /**
   * The credentials for TLS, trusting {@code caPem} (null: the JVM's roots) and presenting
   * {@code certPem}/{@code keyPem} when not null (mutual TLS).
   */
  static ChannelCredentials credentials(Path caPem, Path certPem, Path keyPem) {
    return NettySslContextChannelCredentials.create(context(caPem, certPem, keyPem, JdkAlpnSslContext.JDK_ALPN_ENGINE));
  }

  /** The context; {@code jdkAlpnEngine} names netty's JDK 9 ALPN engine. */
  static SslContext context(Path caPem, Path certPem, Path keyPem, String jdkAlpnEngine) {
    try {
      return files(GrpcSslContexts.forClient(), caPem, certPem, keyPem).build();
    } catch (UnsupportedOperationException e) {
      // Debian's netty: "JDK provider does not support ALPN protocol".
      return jdkAlpn(caPem, certPem, keyPem, jdkAlpnEngine, e);
    } catch (IOException e) {
      throw unreadable(caPem, certPem, keyPem, e);
    }
  }

  /**
   * The context of {@link JdkAlpnSslContext}, after grpc-java refused with {@code grpcRefusal};
   * when this netty lacks {@code jdkAlpnEngine} too, an error saying what to install.
   */
  static SslContext jdkAlpn(Path caPem, Path certPem, Path keyPem, String jdkAlpnEngine, RuntimeException grpcRefusal) {
    SslContext plain;
    try {
      plain = files(SslContextBuilder.forClient(), caPem, certPem, keyPem)
          .sslProvider(SslProvider.JDK)
          .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
          .build();
    } catch (IOException e) {
      throw unreadable(caPem, certPem, keyPem, e);
    }
    try {
      return new JdkAlpnSslContext(plain, jdkAlpnEngine);
    } catch (ReflectiveOperationException | RuntimeException e) {
      IllegalStateException none = new IllegalStateException(
          "gRPC over TLS needs ALPN, which this netty offers neither through the JDK (" + grpcRefusal.getMessage()
              + "; no " + jdkAlpnEngine + ": " + e + ") nor through OpenSSL (" + OpenSsl.unavailabilityCause()
              + "). Put io.netty:netty-tcnative-boringssl-static on the classpath (OpenSSL), or use"
              + " io.netty:netty-handler from Maven Central (JDK ALPN); the client's README says how", e);
      none.addSuppressed(grpcRefusal);
      throw none;
    }
  }

  /** Sets the trust and key material, which both routes share. */
  private static SslContextBuilder files(SslContextBuilder b, Path caPem, Path certPem, Path keyPem) {
    if (caPem != null) {
      b.trustManager(caPem.toFile());
    }
    if (certPem != null) {
      b.keyManager(certPem.toFile(), keyPem.toFile());
    }
    return b;
  }

  private static UncheckedIOException unreadable(Path caPem, Path certPem, Path keyPem, IOException e) {
    return new UncheckedIOException("reading the TLS files (" + caPem + ", " + certPem + ", " + keyPem + "): " + e.getMessage(), e);
  }
}
