package org.jverity.server.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.jverity.server.ServerException;

/** When the environment passes a socket; taking it is tested with real processes (jverity-cli). */
class SocketActivationTest {
  @Test
  void requestedWhenListenPidIsThisProcessAndListenFdsIsSet() {
    assertThat(SocketActivation.requested(Map.of("LISTEN_PID", "42", "LISTEN_FDS", "1"), 42))
        .isTrue();
  }

  @Test
  void notRequestedForAnotherProcessOrWithoutBothVariables() {
    assertThat(SocketActivation.requested(Map.of("LISTEN_PID", "41", "LISTEN_FDS", "1"), 42))
        .as("inherited by mistake")
        .isFalse();
    assertThat(SocketActivation.requested(Map.of("LISTEN_FDS", "1"), 42)).isFalse();
    assertThat(SocketActivation.requested(Map.of("LISTEN_PID", "42"), 42)).isFalse();
    assertThat(SocketActivation.requested(Map.of(), 42)).isFalse();
  }

  @Test
  void aListenPidThatIsNoNumberIsRefusedInOneLine() {
    assertThatThrownBy(
            () -> SocketActivation.requested(Map.of("LISTEN_PID", "x", "LISTEN_FDS", "1"), 42))
        .isInstanceOf(ServerException.class)
        .hasMessage("LISTEN_PID: 'x' (expected: the pid socket activation is for)");
  }
}
