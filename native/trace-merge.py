#!/usr/bin/env python3
"""native/trace-merge.py JAR OUTPUT TRACE... — turns the records of native/agent/usher_trace.c into GraalVM's
reachability metadata (reachability-metadata.json: reflection with its JNI and method-handle uses, JNI, resources).

What is kept:
  - reflection and method handles on classes that are in JAR (Usher and its dependencies: what the native
    executable is built from), asked for by code in JAR or in the JDK, and on JDK classes asked for by code in JAR:
    test code and test frameworks (JUnit, AssertJ, Maven's Surefire), which are not in JAR, are left out with what
    they asked for, and so is what the JDK does with itself (SubstrateVM's business);
  - JNI on JDK classes too, when a library outside the JDK asked (the agent records only those);
  - resources that are files in JAR (Usher's own by folder where it holds no classes: dev/usher/admin/ui/*).
The output is sorted, so a new trace shows in a diff only what changed.
"""
import json
import sys
import zipfile

JDK_PREFIXES = ("java.", "javax.", "jdk.", "sun.", "com.sun.")


def jar_contents(path):
    classes, files = set(), set()
    with zipfile.ZipFile(path) as jar:
        for name in jar.namelist():
            if name.endswith("/"):
                continue
            plain = name
            if plain.startswith("META-INF/versions/"):
                plain = plain.split("/", 3)[3] if plain.count("/") >= 3 else plain
            if plain.endswith(".class"):
                classes.add(plain[:-len(".class")].replace("/", "."))
            else:
                files.add(name)
    return classes, files


def jni_parameter_types(signature):
    """'(ILjava/lang/String;[B)V' -> ['int', 'java.lang.String', 'byte[]']"""
    primitives = {"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long", "F": "float",
                  "D": "double"}
    types, i = [], 1
    while i < len(signature) and signature[i] != ")":
        dims = 0
        while signature[i] == "[":
            dims, i = dims + 1, i + 1
        if signature[i] == "L":
            end = signature.index(";", i)
            name, i = signature[i + 1:end].replace("/", "."), end + 1
        else:
            name, i = primitives[signature[i]], i + 1
        types.append(name + "[]" * dims)
    return types


class Metadata:
    def __init__(self, classes, files):
        self.classes, self.files = classes, files
        self.reflection, self.jni, self.resources = {}, {}, set()

    @staticmethod
    def entry(table, type_name):
        return table.setdefault(type_name, {"type": type_name, "methods": set(), "fields": set(), "all": set()})

    def wanted_caller(self, caller):
        return caller == "?" or caller in self.classes or caller.startswith(JDK_PREFIXES)

    def add(self, fields):
        kind = fields[0]
        if kind == "resource":
            name = fields[2]
            if name in self.files and not name.endswith(".class"):
                self.resources.add(name)
            return
        if kind.startswith("jni-"):
            target = fields[1]
            if target not in self.classes and not target.startswith(JDK_PREFIXES):
                return
            e = self.entry(self.jni, target)
            if kind == "jni-method":
                e["methods"].add((fields[2], tuple(jni_parameter_types(fields[3]))))
            elif kind == "jni-field":
                e["fields"].add(fields[2])
            return
        caller, target = fields[1], fields[2]
        base = target.split("[", 1)[0]
        if base in self.classes:
            if not self.wanted_caller(caller):
                return
        elif not (base.startswith(JDK_PREFIXES) and caller in self.classes):
            return  # a JDK class counts only when Usher or a dependency reflects on it (Netty on java.nio.Buffer)
        e = self.entry(self.reflection, base)
        if kind == "members":
            e["all"].add(fields[3])
        elif kind == "method":
            params = tuple(p for p in fields[4].split(",") if p) if len(fields) > 4 else ()
            e["methods"].add((fields[3], params))
        elif kind == "field":
            e["fields"].add(fields[3])

    @staticmethod
    def render(table):
        out = []
        for name in sorted(table):
            e = table[name]
            item = {"type": name}
            for flag in sorted(e["all"]):
                item[flag] = True
            if e["methods"]:
                item["methods"] = [{"name": m, "parameterTypes": list(p)} for m, p in sorted(e["methods"])]
            if e["fields"]:
                item["fields"] = [{"name": f} for f in sorted(e["fields"])]
            out.append(item)
        return out

    def resource_globs(self):
        """Usher's own resources by folder where the folder holds no classes (every file of dev/usher/admin/ui/
        once one was read: a new admin UI file needs no new trace), the others one by one."""
        class_folders = {c.rpartition(".")[0].replace(".", "/") for c in self.classes}
        globs = set()
        for name in self.resources:
            folder = name.rpartition("/")[0]
            by_folder = name.startswith("dev/usher/") and folder not in class_folders
            globs.add(folder + "/*" if by_folder else name)
        return globs

    def json(self):
        return {
            "comment": "Made by native/trace.sh (Usher's tracing agent over the test suite); edit by re-running it.",
            "reflection": self.render(self.reflection),
            "jni": self.render(self.jni),
            "resources": [{"glob": r} for r in sorted(self.resource_globs())],
        }


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    jar, output, traces = argv[1], argv[2], argv[3:]
    classes, files = jar_contents(jar)
    metadata = Metadata(classes, files)
    for trace in traces:
        with open(trace, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.endswith("\n"):
                    continue  # the last line of a process killed while it wrote it (SIGKILL in a test)
                fields = line.rstrip("\n").split("\t")
                if len(fields) >= 2:
                    metadata.add(fields)
    with open(output, "w", encoding="utf-8") as f:
        json.dump(metadata.json(), f, indent=2, sort_keys=False)
        f.write("\n")
    counts = (len(metadata.reflection), len(metadata.jni), len(metadata.resources))
    print("native/trace-merge.py: %d reflection types, %d JNI types, %d resources -> %s" % (counts + (output,)))


if __name__ == "__main__":
    main(sys.argv)
