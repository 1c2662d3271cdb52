package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** A failure on one line, as YARN's application report shows it. */
class ThrowableSummaryTest {
  private static final StackTraceElement FRAME =
      new StackTraceElement("com.example.UserMapper", "map", "UserMapper.java", 42);

  private static <T extends Throwable> T at(T t, StackTraceElement... trace) {
    t.setStackTrace(trace);
    return t;
  }

  @Test
  void aThrowableIsNamedWithWhereItWasThrown() {
    assertEquals("java.lang.NoSuchMethodError: 'void com.lib.Old.call()' (at"
        + " com.example.UserMapper.map(UserMapper.java:42))",
        ThrowableSummary.of(at(new NoSuchMethodError("'void com.lib.Old.call()'"), FRAME)));
  }

  @Test
  void withoutAStackTraceItIsJustTheThrowable() {
    assertEquals("java.lang.IllegalStateException: boom",
        ThrowableSummary.of(at(new IllegalStateException("boom"))));
  }

  @Test
  void atMostThreeCausesFollow() {
    Throwable chain = new IOException("d");
    for (String m : new String[] {"c", "b", "a"}) {
      chain = new IOException(m, chain);
    }
    Throwable top = at(new RuntimeException("top", chain));

    assertEquals("java.lang.RuntimeException: top; caused by java.io.IOException: a; caused by"
        + " java.io.IOException: b; caused by java.io.IOException: c",
        ThrowableSummary.of(top));
  }

  @Test
  void aCycleOfCausesEnds() {
    IOException a = new IOException("a");
    IOException b = new IOException("b", a);
    a.initCause(b);

    assertEquals("java.io.IOException: a; caused by java.io.IOException: b; caused by"
        + " java.io.IOException: a; caused by java.io.IOException: b",
        ThrowableSummary.of(at(a)));
  }
}
