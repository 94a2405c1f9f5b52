package dev.idnode.client;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiator;
import io.netty.handler.ssl.JdkApplicationProtocolNegotiator;
import io.netty.handler.ssl.SslContext;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSessionContext;

/**
 * A client {@link SslContext} whose engines offer HTTP/2 ({@code h2}) by the JDK 9+ SSLEngine's
 * own ALPN, for a netty that refuses to configure JDK ALPN itself (Debian's libnetty-java leaves
 * out netty's JdkAlpnApplicationProtocolNegotiator, so grpc-java's TLS fails with "JDK provider
 * does not support ALPN protocol"). It wraps each engine of a plain JDK context in netty's own
 * {@code Java9SslEngine}, which Debian does ship: that engine sets the protocols on the JDK
 * engine, checks the server's choice after the handshake and reports it to netty's SslHandler,
 * where grpc-java looks for {@code h2}. The class is package-private in netty, hence reflection.
 */
@SuppressWarnings("deprecation") // JdkApplicationProtocolNegotiator: the type Java9SslEngine takes.
final class JdkAlpnSslContext extends SslContext {
  /** netty's engine that speaks ALPN through the JDK 9+ SSLEngine API. */
  static final String JDK_ALPN_ENGINE = "io.netty.handler.ssl.Java9SslEngine";

  private static final List<String> PROTOCOLS = List.of(ApplicationProtocolNames.HTTP_2);

  private final SslContext plain;
  private final Constructor<?> engine;

  /**
   * Wraps {@code plain}, a client context of the JDK provider without ALPN.
   *
   * @throws ReflectiveOperationException when this netty has no {@code engineClass} to wrap with
   */
  JdkAlpnSslContext(SslContext plain, String engineClass) throws ReflectiveOperationException {
    this.plain = plain;
    Class<?> c = Class.forName(engineClass, false, SslContext.class.getClassLoader());
    engine = c.getDeclaredConstructor(SSLEngine.class, JdkApplicationProtocolNegotiator.class, boolean.class);
    engine.setAccessible(true);
  }

  @Override
  public SSLEngine newEngine(ByteBufAllocator alloc) {
    return wrap(plain.newEngine(alloc));
  }

  @Override
  public SSLEngine newEngine(ByteBufAllocator alloc, String peerHost, int peerPort) {
    return wrap(plain.newEngine(alloc, peerHost, peerPort));
  }

  private SSLEngine wrap(SSLEngine e) {
    try {
      return (SSLEngine) engine.newInstance(e, H2.INSTANCE, false);
    } catch (InvocationTargetException ex) {
      throw new IllegalStateException("wrapping the TLS engine for ALPN: " + ex.getCause(), ex.getCause());
    } catch (ReflectiveOperationException ex) {
      throw new IllegalStateException("wrapping the TLS engine for ALPN: " + ex, ex);
    }
  }

  @Override
  public boolean isClient() {
    return true;
  }

  @Override
  public List<String> cipherSuites() {
    return plain.cipherSuites();
  }

  @Override
  public long sessionCacheSize() {
    return plain.sessionCacheSize();
  }

  @Override
  public long sessionTimeout() {
    return plain.sessionTimeout();
  }

  @Override
  public ApplicationProtocolNegotiator applicationProtocolNegotiator() {
    return H2.INSTANCE;
  }

  @Override
  public SSLSessionContext sessionContext() {
    return plain.sessionContext();
  }

  /** Offers {@code h2} alone and fails the handshake unless the server picks it. */
  private enum H2 implements JdkApplicationProtocolNegotiator {
    INSTANCE;

    @Override
    public List<String> protocols() {
      return PROTOCOLS;
    }

    @Override
    public SslEngineWrapperFactory wrapperFactory() {
      throw new UnsupportedOperationException("JdkAlpnSslContext wraps its engines itself");
    }

    @Override
    public ProtocolSelectorFactory protocolSelectorFactory() {
      throw new UnsupportedOperationException("a client does not select the protocol");
    }

    @Override
    public ProtocolSelectionListenerFactory protocolListenerFactory() {
      return (engine, protocols) -> new ProtocolSelectionListener() {
        @Override
        public void unsupported() {
          // Java9SslEngine turns this into the handshake's failure.
          throw new IllegalStateException("the server agreed no ALPN protocol; gRPC needs h2");
        }

        @Override
        public void selected(String protocol) throws SSLHandshakeException {
          if (!PROTOCOLS.contains(protocol)) {
            throw new SSLHandshakeException("the server chose ALPN protocol " + protocol + "; gRPC needs h2");
          }
        }
      };
    }
  }
}
