package dev.tide.bench.mrcompare;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * CPU-seconds of every container process (AM, executors, tasks) that runs while it samples: every
 * {@value #PERIOD_MILLIS} ms it reads utime + stime from {@code /proc/<pid>/stat} of each process
 * whose working directory is a YARN container's ({@code .../appcache/application_.../container_
 * ...}) and keeps the latest figure per process. A process's CPU after its last sample (at most
 * one period) is not counted. Unlike the cutime of the JVM that hosts the NodeManagers, this does
 * not lose the JVMs whose launch shell was killed before it reaped them (they are reparented to
 * init, and their CPU never reaches the NodeManager's JVM).
 */
final class ContainerCpu implements AutoCloseable {
  static final long PERIOD_MILLIS = 100;
  private static final double TICKS_PER_SECOND = 100.0;

  private final Map<String, Long> ticksByProcess = new ConcurrentHashMap<>();
  private final Thread sampler;
  private volatile boolean stopped;

  ContainerCpu() {
    sampler = new Thread(this::sampleUntilStopped, "container-cpu");
    sampler.setDaemon(true);
    sampler.start();
  }

  private void sampleUntilStopped() {
    while (!stopped) {
      sampleOnce();
      try {
        Thread.sleep(PERIOD_MILLIS); // the sampling period
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void sampleOnce() {
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path proc : procs) {
        try {
          String cwd = Files.readSymbolicLink(proc.resolve("cwd")).toString();
          if (!cwd.contains("/appcache/application_") || !cwd.contains("/container_")) {
            continue;
          }
          String stat = Files.readString(proc.resolve("stat"));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          // utime, stime: fields 14 and 15; starttime (22) tells a reused pid apart
          long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
          ticksByProcess.merge(proc.getFileName() + "@" + f[19], ticks, Math::max);
        } catch (IOException | RuntimeException e) {
          // the process ended while we looked, or is not ours to read
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Stops sampling (after one last sample) and returns the CPU-seconds seen. */
  double stop() throws InterruptedException {
    stopped = true;
    sampler.interrupt();
    sampler.join();
    sampleOnce();
    long ticks = 0;
    for (long t : ticksByProcess.values()) {
      ticks += t;
    }
    return ticks / TICKS_PER_SECOND;
  }

  /** Processes seen. */
  int processes() {
    return ticksByProcess.size();
  }

  @Override
  public void close() throws InterruptedException {
    if (!stopped) {
      stop();
    }
  }
}
