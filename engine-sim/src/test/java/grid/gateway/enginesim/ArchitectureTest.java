package grid.gateway.enginesim;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleName;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The simulator stands for an engine, not for the gateway: it must not see the gateway's code, so that app's tests
 * can use it (test scope) without a cycle, and so that what it answers is what an engine answers, never what the
 * gateway expects.
 */
@AnalyzeClasses(packages = "grid.gateway.enginesim", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule knowsNothingOfTheGateway = noClasses()
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("grid.gateway.app..", "grid.gateway.conformance..")
            .because("app depends on the simulator in test scope; the simulator depends on no gateway code");

    @ArchTest
    static final ArchRule ofRoutingCoreOnlyTheRandomSource = noClasses()
            .should()
            .dependOnClassesThat(resideInAPackage("grid.gateway.routing..").and(not(simpleName("Randomness"))))
            .because("routing-core gives the simulator its random source and nothing of routing");
}
