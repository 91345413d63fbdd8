package dev.usher.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Merges the sites that running containers announce with their labels into the config read from the file: one site
 * table. Each container is read on its own ({@link ContainerLabels}), so a bad label skips that container only; its
 * errors read like the file's, naming the container and the label. Several containers announcing one name are one
 * site with all of them as backends (the settings of the first by container name apply). A name the file also has
 * is served from the file. Stateless.
 */
public final class LabelSites {
    /**
     * The merged config and what was not taken.
     *
     * @param config the file's config with the label sites added ({@link UsherConfig#labelSites()} says where each
     *               comes from)
     * @param errors one per problem in a container's labels, as {@code container NAME: label LABEL: message}
     * @param notes  what was left out or ignored and why: names the file also has, labels Usher does not need
     */
    public record Result(UsherConfig config, List<ConfigError> errors, List<String> notes) {
        public Result {
            errors = List.copyOf(errors);
            notes = List.copyOf(notes);
        }
    }

    /** One merged label site while it is put together. */
    private record Merged(Site site, List<LabelSite.Backend> backends) {
    }

    private LabelSites() {
    }

    /** {@code file} plus the sites of {@code containers}; {@code file} unchanged when it has no {@code docker:}. */
    public static Result merge(UsherConfig file, List<DiscoveredContainer> containers) {
        if (file.docker() == null || containers.isEmpty()) {
            return new Result(file, List.of(), List.of());
        }
        Set<String> fileNames = file.sites().stream().map(Site::name).collect(Collectors.toSet());
        ContainerLabels reader = new ContainerLabels(file, baseDir(file));
        Map<String, Merged> merged = new TreeMap<>();
        List<ConfigError> errors = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        List<DiscoveredContainer> ordered = new ArrayList<>(containers);
        ordered.sort(Comparator.comparing(DiscoveredContainer::name).thenComparing(DiscoveredContainer::id));
        for (DiscoveredContainer container : ordered) {
            ErrorList found = ErrorList.forLabels("container " + container.name());
            Optional<ContainerLabels.Announced> announced = reader.read(container, found, notes);
            if (announced.isEmpty()) {
                found.sorted().stream().filter(e -> !errors.contains(e)).forEach(errors::add);
                continue;
            }
            for (Site site : announced.get().sites()) {
                if (fileNames.contains(site.name())) {
                    notes.add(site.name() + " is a site in " + file.source() + " and in the labels of container "
                            + container.name() + "; the file's site is served");
                    continue;
                }
                LabelSite.Backend backend = new LabelSite.Backend(container.name(), announced.get().network(),
                        site.upstreams().get(0));
                Merged before = merged.get(site.name());
                if (before == null) {
                    merged.put(site.name(), new Merged(site.withUpstreams(List.of()), new ArrayList<>(List.of(
                            backend))));
                    continue;
                }
                if (!site.withUpstreams(List.of()).equals(before.site())) {
                    notes.add("containers " + before.backends().get(0).container() + " and " + container.name()
                            + " both serve " + site.name() + " with different labels; the labels of "
                            + before.backends().get(0).container() + " apply");
                }
                before.backends().add(backend);
            }
        }
        List<Site> sites = new ArrayList<>();
        List<LabelSite> origins = new ArrayList<>();
        merged.forEach((name, m) -> {
            sites.add(m.site().withUpstreams(m.backends().stream().map(LabelSite.Backend::address).distinct()
                    .toList()));
            origins.add(new LabelSite(name, m.backends()));
        });
        return new Result(file.withLabelSites(sites, origins), errors, notes);
    }

    /** The folder relative paths in labels start from: the config file's, as for the file's own sites. */
    private static Path baseDir(UsherConfig file) {
        try {
            Path folder = Path.of(file.source()).toAbsolutePath().getParent();
            return folder == null ? Path.of("").toAbsolutePath() : folder;
        } catch (InvalidPathException e) {
            return Path.of("").toAbsolutePath();
        }
    }
}
