package dev.idnode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Interceptors given to the builder, watched from both ends: the client's and two fake nodes'. */
class InterceptorTest {
  @Test
  void anInterceptorSeesEveryCallRetriesIncluded() throws Exception {
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    ClientInterceptor recorder = new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        String name = method.getBareMethodName();
        seen.add(Character.toLowerCase(name.charAt(0)) + name.substring(1));
        return next.newCall(method, options);
      }
    };
    try (FakeNode a = new FakeNode("A"); FakeNode b = new FakeNode("B")) {
      a.refuse(Status.Code.UNAVAILABLE, Reasons.NO_QUORUM, Map.of());
      b.grant(1, 32);
      try (IdnodeClient client = IdnodeClient.builder().nodes(a.addr(), b.addr()).nodesInOrder(true)
          .deadline(Duration.ofSeconds(5)).interceptors(List.of(recorder)).build()) {
        client.nextIdentity("orders", 2); // A refuses, B answers
        client.generate("users/", 1);
        try (HiLoGenerator orders = HiLoGenerator.create(client, "orders", HiLoOptions.DEFAULT)) {
          orders.nextId();
        }
      }
      List<String> served = new ArrayList<>(a.calls);
      served.addAll(b.calls);
      Collections.sort(served);
      List<String> intercepted = new ArrayList<>(seen);
      Collections.sort(intercepted);
      assertEquals(served, intercepted, "A got " + a.calls + ", B got " + b.calls + ", the interceptor saw " + seen);
      assertEquals(5, seen.size(), "two attempts of nextIdentity, generate, nextHiLo, returnHiLo: " + seen);
    }
  }
}
