package dev.tide;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of the driver runtime (issue 33, README "Parts"), checked on its compiled main
 * classes: the job API depends on nothing of Tide's, streaming and the allocation policy do not
 * reach into the built-in jobs or the scheduler, the executor sees the driver only through the
 * job API and never carries the NodeManager's shuffle server. A rule whose classes are missing
 * fails (ArchUnit's {@code allowEmptyShould(false)}): a moved package must move its rule.
 */
class LayeringTest {
  private static JavaClasses tide;

  @BeforeAll
  static void importClasses() {
    tide = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.tide.driver", "dev.tide.executor", "dev.tide.rpc", "dev.tide.input",
            "dev.tide.app", "dev.tide.output");
  }

  @Test
  void theJobApiDependsOnlyOnItselfJavaAndHadoop() {
    classes().that().resideInAnyPackage("dev.tide.driver.job..", "dev.tide.input..")
        .should().onlyDependOnClassesThat()
        .resideInAnyPackage("dev.tide.driver.job..", "dev.tide.input..", "java..",
            "org.apache.hadoop..")
        .because("user jobs compile against the job API alone (the tide-api module)")
        .allowEmptyShould(false)
        .check(tide);
  }

  @Test
  void streamingDoesNotUseTheBuiltInJobs() {
    noClasses().that().resideInAPackage("dev.tide.driver.streaming..")
        .should().dependOnClassesThat().resideInAPackage("dev.tide.driver.jobs..")
        .because("input splitting is in dev.tide.input, shared by jobs and streaming")
        .allowEmptyShould(false)
        .check(tide);
  }

  @Test
  void theAllocationPolicyDoesNotUseTheScheduler() {
    noClasses().that().resideInAPackage("dev.tide.driver.alloc..")
        .should().dependOnClassesThat().resideInAPackage("dev.tide.driver.scheduler..")
        .because("the policy sees the scheduler through an interface of its own package")
        .allowEmptyShould(false)
        .check(tide);
  }

  @Test
  void theExecutorAndWhatItSharesWithTheDriverSeeTheDriverOnlyThroughTheJobApi() {
    noClasses().that().resideInAnyPackage("dev.tide.executor..", "dev.tide.rpc..",
            "dev.tide.app..", "dev.tide.output..")
        .should().dependOnClassesThat(resideInAPackage("dev.tide.driver..")
            .and(not(resideInAPackage("dev.tide.driver.job.."))))
        .because("an executor does not carry the driver's engine: its messages are in"
            + " dev.tide.rpc, the settings it shares with the driver in dev.tide.app")
        .allowEmptyShould(false)
        .check(tide);
  }

  @Test
  void theExecutorDoesNotCarryTheNodeManagersShuffleServer() {
    noClasses().that().resideInAPackage("dev.tide.executor..")
        .should().dependOnClassesThat()
        .resideInAnyPackage("dev.tide.shuffle.server..", "dev.tide.shuffle.yarn..")
        .because("the shuffle server runs in the NodeManager (shuffle-service)")
        .allowEmptyShould(false)
        .check(tide);
  }

  @Test
  void theDriverExecutorProtocolRunsOnTheTransportNotOnTheShuffle() {
    noClasses().that().resideInAPackage("dev.tide.rpc..")
        .should().dependOnClassesThat().resideInAPackage("dev.tide.shuffle..")
        .because("the protocol runs on network-common (dev.tide.network), as the shuffle does")
        .allowEmptyShould(false)
        .check(tide);
  }
}
