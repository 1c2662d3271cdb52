package dev.tide.bench.yarn;

/** The smallest main, to time a bare JVM start with the executors' flags. */
public final class Hello {
  private Hello() {}

  public static void main(String[] args) {
    System.out.println("hello");
  }
}
