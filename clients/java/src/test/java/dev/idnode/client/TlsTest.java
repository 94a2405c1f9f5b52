package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import java.util.List;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;

/**
 * The TLS context offers HTTP/2 by ALPN with whichever provider this netty has (tls.json of the
 * conformance suite does the handshake with real nodes), and says what to install when it has
 * none.
 */
class TlsTest {
  @Test
  void theContextOffersH2WhicheverProviderThisNettyHas() {
    SslContext ctx = Tls.context(null, null, null, JdkAlpnSslContext.JDK_ALPN_ENGINE);
    assertTrue(ctx.isClient());
    assertEquals(List.of("h2"), ctx.applicationProtocolNegotiator().protocols());
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
