# Image of the grid gateway (docs/design.md §2, §12). Two stages:
#   build    Maven + JDK 25: `mvn package` writes app/target/grid-gateway.jar, whose manifest Class-Path names
#            libs/<artifact>.jar, and app/target/libs/ beside it (no fat jar).
#   runtime  a JRE 25 only, with the jar and libs/ in /opt/grid-gateway, running as uid/gid 10001.
#
# Mount points (the Helm chart in etc/helm/grid-gateway mounts exactly these):
#   /etc/grid-gateway/config.yaml   serving config (GRID_GATEWAY_CONFIG); a ConfigMap mounted as a directory,
#                                   re-read by content every gateway.config_poll_ms, so edits apply live
#   /var/run/grid/tag-key/<file>    tag key file named by gateway.tag_key_path; a Secret mounted as a directory
#                                   (never with subPath: subPath mounts never see Secret updates, so key
#                                   rotation would need a restart)
# Ports: 8080 client listener (server.port), 9090 admin: /metrics, /health/live, /health/ready (server.admin_port).
#
#   docker build -t grid-gateway .
#   docker run -v "$PWD/etc/gateway-example.yaml:/etc/grid-gateway/config.yaml:ro" -e GRID_GATEWAY_ADMIN_HOST=0.0.0.0 \
#       -p 8080:8080 -p 127.0.0.1:9090:9090 grid-gateway
#   (the admin listener binds loopback unless told otherwise: GRID_GATEWAY_ADMIN_HOST or server.admin_host)
#   docker run -v ... grid-gateway --check-config /etc/grid-gateway/config.yaml

# Tags follow the Maven 3.9 line and the JDK/JRE 25 line, so rebuilds pick up their patch releases; pin a digest
# (image@sha256:...) where builds must be reproducible byte for byte.
FROM maven:3.9-eclipse-temurin-25 AS build
WORKDIR /src
# POMs first: the dependency layer is rebuilt only when a POM changes (every module's POM, since Maven reads the
# whole reactor even with -pl).
COPY pom.xml ./
COPY .mvn/ .mvn/
COPY routing-core/pom.xml routing-core/
COPY engine-sim/pom.xml engine-sim/
COPY app/pom.xml app/
COPY conformance/pom.xml conformance/
COPY routing-sim/pom.xml routing-sim/
COPY deploy-check/pom.xml deploy-check/
# -DskipTests, never -Dmaven.test.skip=true: that also skips routing-core's test-jar, which app's test scope names,
# and Maven resolves test-scoped dependencies even when no test runs ("Could not find artifact
# grid.gateway:routing-core:jar:tests"). deploy-check's ImageBuildReplayTest replays this stage in CI.
RUN mvn -B -q -pl app -am -DskipTests package
COPY routing-core/src/ routing-core/src/
# app's tests compile against the engine simulator (test scope), and -DskipTests still compiles them.
COPY engine-sim/src/ engine-sim/src/
COPY app/src/ app/src/
RUN mvn -B -pl app -am -DskipTests package

FROM eclipse-temurin:25-jre
RUN groupadd --system --gid 10001 grid \
    && useradd --system --uid 10001 --gid grid --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin grid
WORKDIR /opt/grid-gateway
# Owned by root and read-only to the gateway's user.
COPY --from=build /src/app/target/libs/ /opt/grid-gateway/libs/
COPY --from=build /src/app/target/grid-gateway.jar /opt/grid-gateway/grid-gateway.jar
ENV GRID_GATEWAY_CONFIG=/etc/grid-gateway/config.yaml
# G1 (below 2 CPUs or 1792 MB the JVM would pick SerialGC, whose full pauses stall every stream), a container-aware
# heap (a share of the memory limit, not of the node) and a clean exit on OutOfMemoryError, so Kubernetes restarts
# the pod instead of leaving a half-working JVM. Set JAVA_TOOL_OPTIONS to replace them (the Helm chart sets the same
# flags plus -XX:ActiveProcessorCount from the CPU request, and appends extraJavaOptions).
ENV JAVA_TOOL_OPTIONS="-XX:+UseG1GC -XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError"
EXPOSE 8080 9090
USER 10001:10001
# No arguments: serve GRID_GATEWAY_CONFIG. Arguments replace that: --config FILE, --check-config FILE, --help.
ENTRYPOINT ["java", "-jar", "/opt/grid-gateway/grid-gateway.jar"]
