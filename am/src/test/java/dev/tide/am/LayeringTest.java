package dev.tide.am;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of the ApplicationMaster's module (issue 33, README "Parts"), checked on its
 * compiled main classes: the client (CLI, submission, progress, history commands) is a leaf
 * nothing else uses, and the allocation logic (placement, failure accounting) is pure: no YARN
 * client, no web, no client. A rule whose classes are missing fails (ArchUnit's
 * {@code allowEmptyShould(false)}): a moved package must move its rule.
 */
class LayeringTest {
  private static JavaClasses am;

  @BeforeAll
  static void importClasses() {
    am = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.tide.am");
  }

  @Test
  void nothingOutsideTheClientUsesTheClient() {
    classes().that().resideInAPackage("dev.tide.am.client..")
        .should().onlyHaveDependentClassesThat().resideInAPackage("dev.tide.am.client..")
        .because("the AM and the client share dev.tide.am.staging, not the client's classes")
        .allowEmptyShould(false)
        .check(am);
  }

  @Test
  void allocationIsPureOfYarnClientWebAndClient() {
    noClasses().that().resideInAPackage("dev.tide.am.allocation..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.tide.am.yarn..",
            "dev.tide.am.web..", "dev.tide.am.client..", "org.apache.hadoop.yarn.client..")
        .because("placement and failure accounting are tested without YARN (dev.tide.am.yarn"
            + " adapts them to AMRMClient)")
        .allowEmptyShould(false)
        .check(am);
  }
}
