// npukit web viewer: loads npukit (Go compiled to WebAssembly, embedded in
// npukit.wasm.js as base64 of its gzip so the page also works from file://)
// into a Web Worker, reads the chosen file locally and shows what
// npukitAnalyse returns; the report is shown in a sandboxed frame (its
// scripts run in an opaque origin, without access to this page).
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const input = $("file"), drop = $("drop"), status = $("status");
  let urls = [];

  function say(text, isError) {
    status.textContent = text;
    status.classList.toggle("error", !!isError);
  }

  // npukit runs in a Web Worker, so a long analysis never freezes the page;
  // it is stopped after LIMIT_MS (?limit_ms=N sets it), and a worker whose Go runtime stopped
  // (out of memory, a crash) is replaced before the next file.
  const LIMIT_MS = Number(new URLSearchParams(location.search).get("limit_ms")) || 120000;
  let wasmModule = null, worker = null, workerReady = null, workerURL = "", pending = null, seq = 0;

  // workerMain runs inside the worker, after Go's wasm_exec.js.
  function workerMain() {
    let started = null; // resolves once npukit has started
    self.onmessage = async (e) => {
      const m = e.data;
      if (m.type === "init") {
        const go = new Go();
        started = new Promise((resolve) => { self.npukitReady = resolve; });
        const instance = await WebAssembly.instantiate(m.module, go.importObject);
        go.run(instance).then(() => self.postMessage({ type: "exited" }));
        await started;
        self.postMessage({ type: "ready", version: self.npukitVersion || "" });
        return;
      }
      if (m.type === "analyse") {
        await started;
        // the browser test's stand-in for an analysis that never ends
        if (m.name === "npukit-test-hang.bin") for (;;);
        let json, broken = false;
        try {
          json = self.npukitAnalyse(m.name, m.data);
        } catch (err) {
          broken = true; // the Go runtime may be gone: the page replaces the worker
          json = JSON.stringify({ name: m.name, error: "npukit failed on this file: " + err, unsupported: true });
        }
        self.postMessage({ type: "result", id: m.id, json, broken });
      }
    };
  }

  function startWorker() {
    if (worker) worker.terminate();
    if (workerURL) URL.revokeObjectURL(workerURL);
    const exec = atob(globalThis.npukitWasmExec || "");
    workerURL = URL.createObjectURL(new Blob([exec, "\n(", workerMain.toString(), ")();\n"], { type: "text/javascript" }));
    const w = new Worker(workerURL);
    worker = w;
    workerReady = new Promise((resolve, reject) => {
      w.onmessage = (e) => {
        const m = e.data;
        if (m.type === "ready") resolve(m.version);
        else if (m.type === "result" && pending && pending.id === m.id) pending.done(m.json, m.broken);
        else if (m.type === "exited" && pending) pending.fail("npukit stopped on this file (its WebAssembly runtime exited); the viewer is ready for another file");
      };
      w.onerror = (e) => {
        e.preventDefault();
        const msg = e.message || "the worker failed";
        reject(new Error(msg));
        if (pending) pending.fail("npukit stopped on this file: " + msg + "; the viewer is ready for another file");
      };
      w.postMessage({ type: "init", module: wasmModule });
    });
    return workerReady;
  }

  async function analyseInWorker(name, data) {
    try {
      await workerReady;
    } catch (e) {
      try {
        await startWorker();
      } catch (e2) {
        return { name, error: "npukit could not start: " + e2.message, unsupported: true };
      }
    }
    return new Promise((resolve) => {
      const id = ++seq;
      const finish = (res, restart) => {
        clearTimeout(timer);
        pending = null;
        if (restart) startWorker().catch((e) => say("npukit could not restart: " + e.message, true));
        resolve(res);
      };
      const timer = setTimeout(() => finish({ name, error: "npukit did not finish within " + LIMIT_MS / 1000 +
        " s on this file and was stopped (the npukit command has no such limit); the viewer is ready for another file", unsupported: true }, true), LIMIT_MS);
      pending = {
        id,
        done: (json, broken) => {
          let res;
          try { res = JSON.parse(json); } catch (e) { res = { name, error: "npukit failed: " + e, unsupported: true }; }
          finish(res, broken);
        },
        fail: (msg) => finish({ name, error: msg, unsupported: true }, true),
      };
      worker.postMessage({ type: "analyse", id, name, data }, [data.buffer]);
    });
  }

  async function loadNpukit() {
    const b64 = globalThis.npukitWasmGzip;
    if (typeof b64 !== "string") throw new Error("npukit.wasm.js is missing: rebuild the site with scripts/build-web.sh");
    const bin = atob(b64);
    const gz = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) gz[i] = bin.charCodeAt(i);
    const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
    const wasm = await new Response(stream).arrayBuffer();
    wasmModule = await WebAssembly.compile(wasm);
    globalThis.npukitVersion = await startWorker();
  }

  function link(id, name, text, type) {
    const a = $(id);
    const url = URL.createObjectURL(new Blob([text], { type }));
    urls.push(url);
    a.href = url;
    a.download = name;
    a.hidden = !text;
  }

  function show(res, ms) {
    urls.forEach((u) => URL.revokeObjectURL(u));
    urls = [];
    const stem = res.name.replace(/\.[^.]*$/, "") || res.name;
    $("result").hidden = res.unsupported || !res.kind;
    if (res.unsupported || !res.kind) {
      say(res.error || "not a supported file", true);
      return;
    }
    $("kind").textContent = res.name + " — " + res.describe;
    const c = $("counts");
    c.textContent = "";
    const parts = [[res.errors, "error", "e"], [res.warnings, "warning", "w"], [res.infos, "info", "i"]];
    parts.forEach(([n, word, cls], i) => {
      const s = document.createElement("span");
      s.className = cls;
      s.textContent = n + " " + word + (n === 1 ? "" : "s");
      c.appendChild(s);
      if (i < parts.length - 1) c.appendChild(document.createTextNode(", "));
    });
    $("timing").textContent = "analysed in " + Math.round(ms) + " ms";
    link("dl-inspect", stem + ".inspect.json", res.inspect || "", "application/json");
    link("dl-check", stem + ".check.json", res.check || "", "application/json");
    link("dl-report", stem + ".html", res.html || "", "text/html");
    const p = $("problem");
    p.hidden = !res.error;
    p.textContent = res.error || "";
    const frame = $("report");
    frame.hidden = !res.html;
    say(res.html ? "" : "no report could be built", !res.html);
    if (!res.html) {
      document.body.dataset.state = "shown";
      return;
    }
    frame.onload = () => { document.body.dataset.state = "shown"; };
    frame.srcdoc = res.html;
  }

  async function analyse(file) {
    document.body.dataset.state = "busy";
    say("Reading " + file.name + " (" + file.size.toLocaleString() + " bytes)…");
    const data = new Uint8Array(await file.arrayBuffer());
    say("Analysing " + file.name + "…");
    const t0 = performance.now();
    const res = await analyseInWorker(file.name, data);
    show(res, performance.now() - t0);
  }

  input.addEventListener("change", () => { if (input.files.length) analyse(input.files[0]); });
  ["dragenter", "dragover"].forEach((t) => drop.addEventListener(t, (e) => { e.preventDefault(); drop.classList.add("over"); }));
  ["dragleave", "drop"].forEach((t) => drop.addEventListener(t, () => drop.classList.remove("over")));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    if (e.dataTransfer.files.length) analyse(e.dataTransfer.files[0]);
  });

  const t0 = performance.now();
  loadNpukit().then(() => {
    input.disabled = false;
    $("loading").textContent = "npukit loaded in " + Math.round(performance.now() - t0) + " ms; files stay on this computer";
    $("version").textContent = globalThis.npukitVersion || "";
    document.body.dataset.state = "ready";
  }, (e) => {
    $("loading").textContent = "";
    say("npukit could not start: " + e.message, true);
    document.body.dataset.state = "failed";
  });
})();
