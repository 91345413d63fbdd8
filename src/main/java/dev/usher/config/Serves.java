package dev.usher.config;

import java.util.List;

/**
 * What answers the requests of a site or of one of its paths: backends, a folder of files, a redirect, a fixed
 * answer, or nothing (a site with only {@code paths:}, whose other requests get a 404).
 */
public sealed interface Serves {
    /** Forward to these backends ({@code to:}). */
    record Backends(List<UpstreamAddress> upstreams) implements Serves {
        public Backends {
            upstreams = List.copyOf(upstreams);
        }
    }

    /** Serve the files of a folder ({@code root:}). */
    record Files(StaticRoot root) implements Serves {
    }

    /** Answer with a redirect ({@code redirect:}). */
    record RedirectTo(Redirect redirect) implements Serves {
    }

    /** Answer with a fixed response ({@code respond:}). */
    record Answer(FixedAnswer answer) implements Serves {
    }

    /** Nothing: a site made only of paths; what no path matches gets a 404. */
    record Nothing() implements Serves {
    }

    Serves NOTHING = new Nothing();
}
