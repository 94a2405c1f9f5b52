package dev.idnode.client;

import dev.idnode.v1.CounterMargin;
import dev.idnode.v1.RestoreMargin;
import dev.idnode.v1.RestoreResponse;
import java.util.List;

/**
 * A restore's margin (docs/backups.md, "A margin for what the backup missed"): checked as the
 * node checks it before anything is sent, and looked for in the answer, as the Go client does.
 */
final class RestoreMargins {
  private RestoreMargins() {}

  /** {@code ahead} when every part is at least 0; otherwise the refusal the node would give. */
  static RestoreMargin check(RestoreMargin ahead) {
    if (ahead == null) {
      throw IdnodeException.invalidInput("ahead: a RestoreMargin (RestoreMargin.getDefaultInstance() for none), not null");
    }
    check("ahead.identities", ahead.getIdentities());
    check("ahead.hilo", ahead.getHilo());
    return ahead;
  }

  private static void check(String name, CounterMargin m) {
    if (m.getAdd() < 0 || m.getPercent() < 0) {
      throw IdnodeException.invalidInput(name + " must be at least 0, got add " + m.getAdd() + " and percent " + m.getPercent());
    }
  }

  /** Whether m asks for nothing: every part 0, or unset, and no margin by rates. */
  static boolean isNone(RestoreMargin m) {
    return numbers(m).equals(numbers(RestoreMargin.getDefaultInstance())) && !m.getByRates();
  }

  /**
   * The answer, when it echoes the margin asked; a node of an older build on the way answers
   * none, and the counters are then at the backup's values only.
   */
  static RestoreResponse echoed(RestoreMargin asked, RestoreResponse answer) {
    // A node of an older build echoes by_rates among the fields it does not know: only the
    // answer's rates say that the margin by rates was taken.
    if (!numbers(asked).equals(numbers(answer.getAhead())) || asked.getByRates() && !answer.hasRates()) {
      throw new MarginNotAppliedException(asked, answer);
    }
    return answer;
  }

  /**
   * The margin as a person reads it: "identities 5000+0%, HiLo 0+20%", and ", the rest by rates"
   * when {@code byRates}.
   */
  static String text(RestoreMargin m, boolean byRates) {
    return "identities " + m.getIdentities().getAdd() + "+" + m.getIdentities().getPercent() + "%, HiLo "
        + m.getHilo().getAdd() + "+" + m.getHilo().getPercent() + "%" + (byRates ? ", the rest by rates" : "");
  }

  /** m's numbers, so that an unset margin and one of zeros compare equal. */
  private static List<Long> numbers(RestoreMargin m) {
    return List.of(m.getIdentities().getAdd(), m.getIdentities().getPercent(), m.getHilo().getAdd(), m.getHilo().getPercent());
  }
}
