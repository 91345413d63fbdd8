// Runs h1spec's http_test.ts (a Deno script) on Node.js: compiles the TypeScript with the "typescript" package
// (NODE_PATH), and gives it the only Deno calls it makes: Deno.args, Deno.exit and Deno.connect (a TCP
// connection with write, read into a buffer, and close). Used by bench/conformance/h1spec.sh.
//   node h1spec-node.mjs PATH/http_test.ts HOST PORT
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";

const require = createRequire(import.meta.url);
const ts = require("typescript");
const [, , script, ...args] = process.argv;

function connect({ hostname, port }) {
    return new Promise((resolve, reject) => {
        const socket = net.connect({ host: hostname, port }, () => resolve(connection(socket)));
        socket.once("error", reject);
    });
}

/** A Deno.Conn over a Node socket: read() resolves with the bytes that came (null at the end). */
function connection(socket) {
    const chunks = [];
    let ended = false;
    let waiting = null;
    const wake = () => {
        if (waiting) {
            const w = waiting;
            waiting = null;
            w();
        }
    };
    socket.on("data", (d) => { chunks.push(d); wake(); });
    socket.on("end", () => { ended = true; wake(); });
    socket.on("error", () => { ended = true; wake(); });
    return {
        write: (bytes) => new Promise((resolve) => socket.write(bytes, () => resolve(bytes.length))),
        read: async (buffer) => {
            while (chunks.length === 0 && !ended) {
                await new Promise((resolve) => { waiting = resolve; });
            }
            if (chunks.length === 0) {
                return null;
            }
            const data = Buffer.concat(chunks.splice(0));
            const n = Math.min(buffer.length, data.length);
            data.copy(buffer, 0, 0, n);
            if (n < data.length) {
                chunks.unshift(data.subarray(n));
            }
            return n;
        },
        close: () => socket.destroy(),
    };
}

globalThis.Deno = { args, exit: (code) => process.exit(code), connect };
const js = ts.transpileModule(readFileSync(script, "utf8"), {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
}).outputText;
await import("data:text/javascript," + encodeURIComponent(js));
