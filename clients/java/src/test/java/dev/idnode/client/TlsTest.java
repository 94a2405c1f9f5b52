package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.grpc.netty.GrpcSslContexts;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;

/**
 * The TLS context offers HTTP/2 by ALPN with whichever provider this netty has (tls.json of the
 * conformance suite does the handshake with real nodes), and says what to install when it has
 * none; nodes that require a client certificate refuse a client without one, and take one
 * from PEM files or from an SslContext the application built.
 */
class TlsTest {
  @Test
  void theContextOffersH2WhicheverProviderThisNettyHas() {
    SslContext ctx = Tls.context(null, null, null, JdkAlpnSslContext.JDK_ALPN_ENGINE);
    assertTrue(ctx.isClient());
    assertEquals(List.of("h2"), ctx.applicationProtocolNegotiator().protocols());
  }

  @Test
  void whereGrpcRefusesJdkAlpnTheClientWiresItIn() throws Exception {
    boolean refused;
    try {
      GrpcSslContexts.forClient().build();
      refused = false;
    } catch (UnsupportedOperationException e) {
      refused = true; // Debian's netty
    }
    SslContext ctx = Tls.context(null, null, null, JdkAlpnSslContext.JDK_ALPN_ENGINE);
    assertEquals(refused, ctx instanceof JdkAlpnSslContext);
  }

  @Test
  void nodesRequiringAClientCertificateTakeItFromFilesOrAnSslContext() {
    try (IdCluster idcluster = new IdCluster()) {
      JsonObject topology = new JsonObject();
      topology.addProperty("tls", "mutual");
      JsonObject tls = idcluster.start(topology).getAsJsonObject("tls");
      Path ca = Path.of(tls.get("ca").getAsString());
      IdnodeClient.Builder b = IdnodeClient.builder().nodes(idcluster.grpcAddrs()).deadline(Duration.ofSeconds(5)).tls(ca);
      try (IdnodeClient without = b.build()) {
        assertThrows(UnavailableException.class, () -> without.generate("", 1));
      }
      b.clientCertificate(Path.of(tls.get("clientCert").getAsString()), Path.of(tls.get("clientKey").getAsString()));
      try (IdnodeClient with = b.build()) {
        assertEquals(1, with.generate("", 1).size());
      }
      // The same certificate in a context of the application's own, as jetcd takes one.
      SslContext own = Tls.context(ca, Path.of(tls.get("clientCert").getAsString()), Path.of(tls.get("clientKey").getAsString()),
          JdkAlpnSslContext.JDK_ALPN_ENGINE);
      try (IdnodeClient withContext = IdnodeClient.builder().nodes(idcluster.grpcAddrs()).deadline(Duration.ofSeconds(5))
          .sslContext(own).build()) {
        assertEquals(1, withContext.generate("", 1).size());
      }
      assertThrows(IllegalStateException.class, () -> IdnodeClient.builder().nodes(idcluster.grpcAddrs()).tls(ca).sslContext(own).build());
    }
  }

  @Test
  void theJdkRouteSetsH2OnTheJdkEngine() {
    SslContext ctx = Tls.jdkAlpn(null, null, null, JdkAlpnSslContext.JDK_ALPN_ENGINE, new UnsupportedOperationException("refused"));
    SSLEngine engine = ctx.newEngine(UnpooledByteBufAllocator.DEFAULT, "localhost", 7070);
    assertTrue(engine.getUseClientMode());
    assertEquals(List.of("h2"), List.of(engine.getSSLParameters().getApplicationProtocols()));
  }

  @Test
  void withNeitherProviderTheErrorSaysWhatToInstall() {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> Tls.jdkAlpn(null, null, null,
        "io.netty.handler.ssl.NoSuchEngine", new UnsupportedOperationException("JDK provider does not support ALPN protocol")));
    assertTrue(e.getMessage().contains("JDK provider does not support ALPN protocol"), e.getMessage());
    assertTrue(e.getMessage().contains("io.netty:netty-tcnative-boringssl-static"), e.getMessage());
    assertTrue(e.getMessage().contains("io.netty:netty-handler from Maven Central"), e.getMessage());
  }
}
