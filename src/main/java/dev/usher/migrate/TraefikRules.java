package dev.usher.migrate;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads a Traefik router rule ({@code Host(`a.example.com`) || Host(`b.example.com`)}) for the host names it
 * matches. Usher routes by host name only, so a rule is carried over only when it is a choice of {@code Host}
 * matchers (v2's several names in one {@code Host} and {@code HostHeader} too), optionally with
 * {@code PathPrefix(`/`)}, which matches everything; any other matcher is named as the reason it is not.
 */
final class TraefikRules {
    /** The names a rule matches, or why they cannot be had. */
    record Hosts(List<String> names, String problem) {
    }

    private sealed interface Node permits Call, Or, And, Not {
    }

    private record Call(String name, List<String> args) implements Node {
    }

    private record Or(List<Node> nodes) implements Node {
    }

    private record And(List<Node> nodes) implements Node {
    }

    private record Not(Node node) implements Node {
    }

    private final String rule;
    private int at;

    private TraefikRules(String rule) {
        this.rule = rule;
    }

    static Hosts hosts(String rule) {
        Node tree;
        try {
            TraefikRules p = new TraefikRules(rule);
            tree = p.or();
            p.space();
            if (p.at != rule.length()) {
                return new Hosts(List.of(), "cannot read the rule past \"" + rule.substring(0, p.at) + "\"");
            }
        } catch (IllegalArgumentException e) {
            return new Hosts(List.of(), "cannot read the rule: " + e.getMessage());
        }
        Set<String> names = new LinkedHashSet<>();
        String problem = collect(tree, names);
        return problem == null ? new Hosts(List.copyOf(names), null) : new Hosts(List.of(), problem);
    }

    /** Adds the host names of {@code node}; returns why it is not a choice of host names, or null. */
    private static String collect(Node node, Set<String> names) {
        return switch (node) {
            case Call c when isHost(c) -> {
                names.addAll(c.args());
                yield null;
            }
            case Call c -> "it matches on " + c.name() + "(), and Usher routes by host name only";
            case Or o -> {
                for (Node n : o.nodes()) {
                    String problem = collect(n, names);
                    if (problem != null) {
                        yield problem;
                    }
                }
                yield null;
            }
            case And a -> {
                List<Node> hosts = new ArrayList<>();
                for (Node n : a.nodes()) {
                    if (n instanceof Call c && c.name().equalsIgnoreCase("PathPrefix") && c.args().equals(List.of("/"))) {
                        continue; // matches every path
                    }
                    hosts.add(n);
                }
                if (hosts.size() != 1) {
                    String other = a.nodes().stream().filter(n -> !(n instanceof Call c && isHost(c)))
                            .map(n -> n instanceof Call c ? c.name() + "()" : "a combined condition").findFirst()
                            .orElse("more than one Host()");
                    yield "it also matches on " + other + ", and Usher routes by host name only";
                }
                yield collect(hosts.get(0), names);
            }
            case Not n -> "it uses !, and Usher routes by host name only";
        };
    }

    private static boolean isHost(Call c) {
        String n = c.name().toLowerCase(Locale.ROOT);
        return n.equals("host") || n.equals("hostheader");
    }

    private Node or() {
        List<Node> nodes = new ArrayList<>(List.of(and()));
        while (eat("||")) {
            nodes.add(and());
        }
        return nodes.size() == 1 ? nodes.get(0) : new Or(nodes);
    }

    private Node and() {
        List<Node> nodes = new ArrayList<>(List.of(unary()));
        while (eat("&&")) {
            nodes.add(unary());
        }
        return nodes.size() == 1 ? nodes.get(0) : new And(nodes);
    }

    private Node unary() {
        if (eat("!")) {
            return new Not(unary());
        }
        if (eat("(")) {
            Node inner = or();
            expect(")");
            return inner;
        }
        space();
        int start = at;
        while (at < rule.length() && Character.isLetterOrDigit(rule.charAt(at))) {
            at++;
        }
        if (start == at) {
            throw new IllegalArgumentException("expected a matcher such as Host(`example.com`) at \""
                    + rule.substring(at) + "\"");
        }
        String name = rule.substring(start, at);
        expect("(");
        List<String> args = new ArrayList<>();
        if (!eat(")")) {
            do {
                args.add(string());
            } while (eat(","));
            expect(")");
        }
        return new Call(name, args);
    }

    private String string() {
        space();
        if (at >= rule.length()) {
            throw new IllegalArgumentException("the rule ends inside a matcher");
        }
        char quote = rule.charAt(at);
        if (quote != '`' && quote != '"' && quote != '\'') {
            throw new IllegalArgumentException("a matcher's value must be quoted, as in Host(`example.com`)");
        }
        int end = rule.indexOf(quote, at + 1);
        if (end < 0) {
            throw new IllegalArgumentException("a value has no closing " + quote);
        }
        String s = rule.substring(at + 1, end);
        at = end + 1;
        return s;
    }

    private boolean eat(String token) {
        space();
        if (rule.startsWith(token, at)) {
            at += token.length();
            return true;
        }
        return false;
    }

    private void expect(String token) {
        if (!eat(token)) {
            throw new IllegalArgumentException("expected " + token + " at \"" + rule.substring(at) + "\"");
        }
    }

    private void space() {
        while (at < rule.length() && Character.isWhitespace(rule.charAt(at))) {
            at++;
        }
    }
}
