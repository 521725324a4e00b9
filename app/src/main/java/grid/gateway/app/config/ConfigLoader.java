package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.tag.TagKeyRing;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Loads the serving config (docs/design.md §7) from its YAML file, and the tag keys it names, into a {@link GatewaySnapshot}
 * with every default filled in, or refuses it with a {@link ConfigException} that lists every problem found, each
 * with its key path: {@code sites[1].clusters[0].url: "ftp://x" (expected: an http or https URL)}.
 *
 * <p>Strict: keys are snake_case exactly as in the spec and an unknown key anywhere is refused; values must have
 * their YAML type (a quoted number is refused); a key written twice is refused. A relative {@code tag_key_path} is
 * resolved against the config file's directory.
 *
 * <p>Stateless and thread-safe.
 */
public final class ConfigLoader {
    private ConfigLoader() {}

    /**
     * The snapshot in the config file at {@code file}.
     *
     * @throws ConfigException listing every problem, when the file cannot be read or is not a valid config
     */
    public static GatewaySnapshot load(Path file) {
        requireNonNull(file, "file");
        byte[] content;
        try {
            content = ConfigFiles.readConfig(file);
        } catch (IOException e) {
            throw new ConfigException(
                    List.of(file + ": cannot read the config file (" + ConfigFiles.describe(e) + ")"));
        }
        return load(content, file, ConfigFiles::readKey);
    }

    /**
     * The snapshot in {@code content}, read from {@code file}, with the tag key file read through {@code keys}.
     *
     * @throws ConfigException listing every problem
     */
    static GatewaySnapshot load(byte[] content, Path file, KeyFileReader keys) {
        Problems problems = new Problems();
        Optional<Map<?, ?>> document = YamlText.parse(content, file.toString(), problems);
        if (document.isEmpty()) {
            problems.throwIfAny();
        }
        YamlBlock root = YamlBlock.root(document.orElseThrow(), problems);
        root.only("server", "gateway", "sites", "plugins", "development", "tracing");
        Path absolute = file.toAbsolutePath();
        Path directory = absolute.getParent() == null ? absolute : absolute.getParent();
        TlsBlock.Context tls = new TlsBlock.Context(directory, keys, TlsBlock.allowInsecure(root));
        YamlBlock serverBlock = root.block("server");
        ServerSettings server = ServerBlock.read(serverBlock, directory, keys);
        YamlBlock gatewayBlock = root.block("gateway");
        Optional<GatewaySettings> gateway = GatewayBlock.read(gatewayBlock, directory);
        UpstreamSettings upstream = GatewayBlock.upstream(gatewayBlock);
        TransportSecurity security = new TransportSecurity(
                TlsBlock.listener(serverBlock, "tls", tls),
                TlsBlock.listener(serverBlock, "admin_tls", tls),
                TlsBlock.upstream(gatewayBlock.block("upstream"), tls),
                Map.of(),
                tls.allowInsecure());
        SitesBlock.Sites sites = SitesBlock.read(root, tls);
        YamlBlock route = PluginsBlock.route(root);
        LoadSettings load = PluginsBlock.load(route);
        PrefixAffinitySettings prefixAffinity = PluginsBlock.prefixAffinity(route);
        SharingSettings sharing = PluginsBlock.sharing(route, directory);
        TracingSettings tracing = TracingBlock.read(root);
        gateway.ifPresent(g -> checkLocalSite(g.site(), sites, problems));
        Optional<TagKeyRing> keyRing = gateway.flatMap(GatewaySettings::tagKeyPath)
                .map(path -> TagKeyFile.read(path, keys, problems))
                .orElse(Optional.of(TagKeyRing.none()));
        problems.throwIfAny();
        Grid grid = grid(gateway.orElseThrow().site(), sites, problems);
        problems.throwIfAny();
        return new GatewaySnapshot(
                new GatewayConfig(
                        server,
                        gateway.orElseThrow(),
                        upstream,
                        grid,
                        load,
                        prefixAffinity,
                        sharing,
                        new TransportSecurity(
                                security.server(),
                                security.admin(),
                                security.upstreamDefault(),
                                sites.tls(),
                                security.allowInsecure()),
                        tracing),
                keyRing.orElseThrow());
    }

    private static void checkLocalSite(SiteName site, SitesBlock.Sites sites, Problems problems) {
        // With no valid site there is nothing to compare against; the sites' own problems say why.
        if (!sites.names().isEmpty() && !sites.names().contains(site)) {
            String names = sites.names().stream().map(SiteName::value).collect(Collectors.joining(", "));
            problems.add("gateway.site", site.value(), "one of the sites: " + names);
        }
    }

    private static Grid grid(SiteName site, SitesBlock.Sites sites, Problems problems) {
        try {
            return Grid.of(site, sites.clusters());
        } catch (IllegalArgumentException e) {
            // The blocks check what Grid checks, so this is a safety net rather than an expected path.
            problems.addLine("sites: " + e.getMessage());
            return Grid.of(site, List.of());
        }
    }
}
