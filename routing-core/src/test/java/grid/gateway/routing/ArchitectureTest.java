package grid.gateway.routing;

import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.type;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Architecture rules for routing-core (docs/design.md §S2.1 and §S2.4): no Helidon, no static mutable state, and time and
 * randomness read in exactly one place each. No rule allows an empty match: a rule whose classes were renamed away
 * fails instead of passing vacuously.
 */
@AnalyzeClasses(packages = "grid.gateway.routing", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule noHelidon = noClasses()
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.helidon..")
            .because("routing-core is pure Java; Helidon stays in app");

    @ArchTest
    static final ArchRule noStaticMutableFields = fields().that()
            .areStatic()
            .should()
            .beFinal()
            .because("state lives in objects the composition root creates (docs/design.md §S2.4.2)");

    @ArchTest
    static final ArchRule onlySystemMonotonicClockReadsNanoTime = noClasses()
            .that()
            .doNotHaveSimpleName("SystemMonotonicClock")
            .should()
            .callMethod(System.class, "nanoTime")
            .because("time is injected through MonotonicClock (docs/design.md §S2.4.3)");

    @ArchTest
    static final ArchRule onlyRandomnessUsesThreadLocalRandom = noClasses()
            .that()
            .doNotHaveSimpleName("Randomness")
            .should()
            .dependOnClassesThat()
            .belongToAnyOf(ThreadLocalRandom.class)
            .because("randomness is injected as a RandomGenerator (docs/design.md §S2.4.4)");

    @ArchTest
    static final ArchRule noWallClock = noClasses()
            .should()
            .callMethodWhere(target(name("now")).and(target(owner(type(Instant.class)))))
            .orShould()
            .callMethod(System.class, "currentTimeMillis")
            .because("routing-core reads only the injected monotonic clock (docs/design.md §S2.4.3)");

    @ArchTest
    static final ArchRule keyerStandsAlone = noClasses()
            .that()
            .resideInAPackage("grid.gateway.routing.keyer..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "grid.gateway.routing",
                    "grid.gateway.routing.prefix..",
                    "grid.gateway.routing.select..",
                    "grid.gateway.routing.load..",
                    "grid.gateway.routing.tag..",
                    "grid.gateway.routing.grid..")
            .because("the keyer turns bytes into keys and knows nothing of routing (docs/design.md §S2.3, step 5)");

    @ArchTest
    static final ArchRule tagsKnowNoGridAndNoRouting = noClasses()
            .that()
            .resideInAPackage("grid.gateway.routing.tag..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "grid.gateway.routing",
                    "grid.gateway.routing.grid..",
                    "grid.gateway.routing.select..",
                    "grid.gateway.routing.prefix..")
            .because("resolving a tag to a cluster is the router's job; tags are text and macs");

    @ArchTest
    static final ArchRule onlyTheRouterPackageSeesTheWhole = noClasses()
            .that()
            .resideOutsideOfPackage("grid.gateway.routing")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("grid.gateway.routing")
            .because("SiteRouter composes the parts; the parts do not call back into it");
}
