package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.JobSession;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.Reducer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** A job's session: each plan handed to the driver, and its end reported back to the job. */
class PlanSessionTest {
  private static final JobContext CONTEXT = new JobContext(new Configuration(false),
      List.of("x"));
  private static final JobPlan PLAN = JobPlan.mapReduce("p", List.of(new InputSplit(
      new byte[0], List.of())), Mapper.class, Reducer.class, 1, "");

  /** A driver that ends each plan at once as told. */
  private static PlanSession endingWith(List<JobPlan> started,
      java.util.function.Consumer<CompletableFuture<String>> end) {
    BiConsumer<JobPlan, CompletableFuture<String>> start = (plan, done) -> {
      started.add(plan);
      end.accept(done);
    };
    return new PlanSession(CONTEXT, start);
  }

  @Test
  void aPlanThatSucceedsReturnsAndIsCounted() throws Exception {
    List<JobPlan> started = new ArrayList<>();
    PlanSession session = endingWith(started, done -> done.complete(null));

    session.run(PLAN);
    session.run(PLAN);

    assertSame(CONTEXT, session.context());
    assertEquals(List.of(PLAN, PLAN), started);
    assertEquals(2, session.plansRun());
  }

  @Test
  void aPlanThatFailsThrowsWithTheDriversReason() {
    PlanSession session = endingWith(new ArrayList<>(),
        done -> done.complete("stage 1 failed: task 3 failed 4 times"));

    JobSession.JobFailedException e = assertThrows(JobSession.JobFailedException.class,
        () -> session.run(PLAN));

    assertEquals("stage 1 failed: task 3 failed 4 times", e.getMessage());
  }

  @Test
  void anErrorOfTheDriverItselfFailsThePlanSayingSo() {
    PlanSession session = endingWith(new ArrayList<>(),
        done -> done.completeExceptionally(new IllegalStateException("event loop died")));

    JobSession.JobFailedException e = assertThrows(JobSession.JobFailedException.class,
        () -> session.run(PLAN));

    assertEquals("driver error: java.lang.IllegalStateException: event loop died",
        e.getMessage());
  }

  @Test
  void theJobThreadWaitsForTheDriverToEndThePlan() throws Exception {
    CompletableFuture<CompletableFuture<String>> handedOver = new CompletableFuture<>();
    PlanSession session = endingWith(new ArrayList<>(), handedOver::complete);
    CompletableFuture<Void> job = CompletableFuture.runAsync(() -> {
      try {
        session.run(PLAN);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });

    CompletableFuture<String> done = handedOver.get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertEquals(false, job.isDone(), "the plan has not ended yet");
    done.complete(null);
    job.get(10, java.util.concurrent.TimeUnit.SECONDS);
  }

  @Test
  void anAnnouncementGoesToTheDriverAndBadOnesAreRefusedNamingTheArgument() {
    List<String> announced = new ArrayList<>();
    PlanSession session = new PlanSession(CONTEXT, (plan, done) -> done.complete(null),
        (executors, within) -> announced.add(executors + " in " + within.toMillis() + " ms"));

    session.expect(4, Duration.ofSeconds(10));
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
        () -> session.expect(0, Duration.ofSeconds(1)));
    IllegalArgumentException past = assertThrows(IllegalArgumentException.class,
        () -> session.expect(2, Duration.ofSeconds(-1)));

    assertEquals(List.of("4 in 10000 ms"), announced);
    assertEquals("expect: executors must be at least 1, got 0", none.getMessage());
    assertEquals("expect: within must be a duration >= 0, got PT-1S", past.getMessage());
  }
}
