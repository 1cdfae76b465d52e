// npukit web viewer: loads npukit (Go compiled to WebAssembly, embedded in
// npukit.wasm.js as base64 of its gzip so the page also works from file://),
// reads the chosen file locally and shows what npukitAnalyse returns.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const input = $("file"), drop = $("drop"), status = $("status");
  let urls = [];

  function say(text, isError) {
    status.textContent = text;
    status.classList.toggle("error", !!isError);
  }

  async function loadNpukit() {
    const b64 = globalThis.npukitWasmGzip;
    if (typeof b64 !== "string") throw new Error("npukit.wasm.js is missing: rebuild the site with scripts/build-web.sh");
    const bin = atob(b64);
    const gz = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) gz[i] = bin.charCodeAt(i);
    const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
    const wasm = await new Response(stream).arrayBuffer();
    const go = new Go();
    const ready = new Promise((resolve) => { globalThis.npukitReady = resolve; });
    const { instance } = await WebAssembly.instantiate(wasm, go.importObject);
    go.run(instance);
    await ready;
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
    await new Promise((r) => setTimeout(r, 20)); // let the status paint
    const t0 = performance.now();
    let res;
    try {
      res = JSON.parse(globalThis.npukitAnalyse(file.name, data));
    } catch (e) {
      res = { name: file.name, error: "npukit failed: " + e, unsupported: true };
    }
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
