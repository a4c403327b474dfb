/* execmem report: the theme switch, and the episode and trajectory browsers. Their data is
   gzip-compressed JSON in base64, unpacked here with DecompressionStream; nothing is fetched.
   Every text from a run is set with textContent, never parsed as HTML. */
"use strict";
(function () {
  const PAGE = 25;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "text") node.textContent = value;
      else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value);
    }
    for (const child of children.flat(Infinity)) {
      if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  async function unpack(text) {
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  const shown = (value) => (value === null || value === undefined ? "–" : typeof value === "object" ? JSON.stringify(value) : String(value));
  const side = (value) => (value === null ? "(unchanged)" : shown(value));
  const num = (value) => (typeof value === "number" ? value.toFixed(3) : "–");
  const badge = (text, kind) => el("span", { class: "badge " + (kind || text), text: text.replace(/_/g, " ") });

  function themeSwitch() {
    const button = document.getElementById("theme");
    const order = ["auto", "light", "dark"];
    let theme = "auto";
    try { theme = localStorage.getItem("execmem-report-theme") || "auto"; } catch (e) { /* file: storage off */ }
    const apply = () => {
      document.documentElement.dataset.theme = theme;
      button.textContent = "theme: " + theme;
    };
    button.addEventListener("click", () => {
      theme = order[(order.indexOf(theme) + 1) % order.length];
      try { localStorage.setItem("execmem-report-theme", theme); } catch (e) { /* ignored */ }
      apply();
    });
    apply();
  }

  /* A list of items with filters, a count, pages, and details drawn when opened. */
  function browser(root, items, kind) {
    const selects = [...root.querySelectorAll("select[data-filter]")];
    const search = root.querySelector("input[data-filter=text]");
    const list = root.querySelector("[data-items]");
    const count = root.querySelector("[data-count]");
    const pages = root.querySelector("[data-pages]");
    let page = 0, found = items;
    for (const select of selects) {
      const key = select.dataset.filter;
      const values = kind.options[key] || [...new Set(items.map((item) => String(item.filters[key])))].sort();
      for (const value of values) select.append(el("option", { value: value, text: String(value).replace(/_/g, " ") }));
    }
    const draw = () => {
      const last = Math.max(0, Math.ceil(found.length / PAGE) - 1);
      page = Math.min(Math.max(page, 0), last);
      list.replaceChildren(...found.slice(page * PAGE, page * PAGE + PAGE).map((item) => row(item, kind)));
      count.textContent = `${found.length.toLocaleString("en")} of ${items.length.toLocaleString("en")} ${kind.noun}`;
      pages.textContent = found.length ? `page ${page + 1} of ${last + 1}` : "";
      root.querySelector("[data-page='-1']").disabled = page === 0;
      root.querySelector("[data-page='1']").disabled = page >= last;
    };
    const filter = () => {
      const wanted = selects.filter((s) => s.value !== "").map((s) => [s.dataset.filter, s.value]);
      const words = search.value.trim().toLowerCase();
      found = items.filter((item) => wanted.every(([key, value]) => String(item.filters[key]) === value)
        && (!words || item.text.includes(words)));
      page = 0;
      draw();
    };
    for (const select of selects) select.addEventListener("change", filter);
    search.addEventListener("input", filter);
    for (const button of root.querySelectorAll("[data-page]")) {
      button.addEventListener("click", () => { page += Number(button.dataset.page); draw(); });
    }
    draw();
  }

  function row(item, kind) {
    const details = el("details", { "data-id": item.key }, el("summary", {}, kind.summary(item)));
    details.addEventListener("toggle", () => {
      if (details.open && !details.querySelector(".body")) details.append(el("div", { class: "body" }, kind.detail(item)));
    }, { once: false });
    return el("li", {}, details);
  }

  const section = (title, ...content) => [el("h5", { text: title }), ...content];
  const pre = (text) => el("pre", { text: text });
  function table(head, rows) {
    return el("div", { class: "scroll" }, el("table", {}, el("thead", {}, el("tr", {}, head.map((h) => el("th", { text: h })))),
      el("tbody", {}, rows)));
  }

  /* Vehicle episodes. */
  function memoryText(piece) {
    const parts = [pre(piece.text || "")];
    if (piece.ref) parts[0] = el("p", { class: "small", text: `${piece.chars.toLocaleString("en")} characters, stored once in ${piece.ref}` });
    else if (piece.chars > (piece.text || "").length) {
      parts.push(el("p", { class: "small", text: `cut: ${piece.text.length.toLocaleString("en")} of ${piece.chars.toLocaleString("en")} characters shown` }));
    }
    if (piece.lines && piece.lines.length) {
      parts.push(el("p", { class: "small", text: "its lines that hold a memory value or an evidence line:" }), pre(piece.lines.join("\n")));
    }
    return parts;
  }

  const vehicle = (questions) => ({
    noun: "episodes",
    options: {},
    summary: (e) => {
      const q = questions[e.q];
      return [el("strong", { text: e.run }), el("span", { text: `qa_${q.scenario} #${q.index}` + (e.trial > 1 ? ` trial ${e.trial}` : "") }),
        badge(q.type, "type"), badge(e.label, e.label === "exact" ? "exact" : "fail"), el("span", { class: "what", text: q.query })];
    },
    detail: (e) => {
      const q = questions[e.q];
      const evidence = q.evidence.map((event) => el("div", {}, el("p", {}, el("strong", { text: event.when.replace("T", " ").slice(0, 16) + " " }), event.text),
        pre(event.lines.map(([line, time, speaker, text]) => `${line} · ${time} · ${speaker}: ${text}`).join("\n") || "(no history line placed)")));
      const memory = [];
      if (e.memory.prompt) memory.push(el("p", { class: "small", text: "in the prompt:" }), ...memoryText(e.memory.prompt));
      for (const [name, args, result] of e.memory.calls) memory.push(el("p", {}, el("code", { text: `${name}(${args})` })), ...memoryText(result));
      if (!memory.length) memory.push(el("p", { class: "small", text: "nothing: this memory showed the agent no text" }));
      const calls = e.calls.map(([name, args, ok, message]) => el("tr", {}, el("td", {}, el("code", { text: name })),
        el("td", {}, el("code", { text: JSON.stringify(args) })), el("td", {}, badge(ok ? "ok" : "failed", ok ? "passed" : "failed")), el("td", { text: message })));
      const diff = e.diff.map(([path, initial, gold, agent, status]) => el("tr", {}, el("td", {}, el("code", { text: path })),
        el("td", { text: initial === null ? "(absent)" : shown(initial) }), el("td", { text: side(gold) }), el("td", { text: side(agent) }), el("td", { class: "status-" + status, text: status })));
      const f1 = Object.entries(e.f1).map(([k, v]) => `${k} F1 ${num(v)}`).join(" · ");
      return [
        el("p", { class: "small", text: `${e.run} · episode ${e.id} · ${f1 || "not scored"} · end: ${shown(e.end)} · steps ${shown(e.steps)}` +
          ` · stored: ${shown(e.stored)} · delivered: ${shown(e.delivered)}` }),
        e.error ? el("p", { class: "notice", text: "infrastructure error: " + e.error }) : null,
        ...section("Request", el("blockquote", { text: q.query })),
        ...section("Evidence in the history", evidence.length ? evidence : [el("p", { text: "no gold event" })],
          el("p", { class: "small", text: `memory values: ${q.values.map(shown).join(", ") || "none"}; shown to the agent: ${e.shown.map(shown).join(", ") || "none"}` })),
        ...section("What memory returned", memory),
        ...section("Calls made", calls.length ? table(["tool", "arguments", "", "the car said"], calls) : el("p", { text: "no car call" })),
        ...section("State against gold", diff.length ? table(["field", "initial", "gold", "agent", ""], diff) : el("p", { text: "nothing changed on either side" })),
      ];
    },
  });

  /* Coding trajectories. */
  const coding = {
    noun: "episodes",
    options: { resolved: ["yes", "no"] },
    summary: (t) => [el("strong", { text: t.run }), el("span", { text: t.id }), badge(t.resolved ? "resolved" : "not resolved", t.resolved ? "exact" : "fail"),
      el("span", { class: "what", text: `${t.steps.length} step${t.steps.length === 1 ? "" : "s"} · end: ${shown(t.end)}` })],
    detail: (t) => {
      const steps = t.steps.map((s) => el("div", {}, el("p", {}, el("strong", { text: `step ${s.step}` }), s.said ? " " + s.said : ""),
        s.results.map((r) => (r.command !== undefined
          ? [el("p", {}, badge(`exit ${shown(r.exit)}` + (r.timed_out ? ", timed out" : ""), r.exit === 0 ? "passed" : "failed")),
            el("pre", { class: "command", text: "$ " + r.command }), pre(r.output || "(no output)")]
          : [el("p", {}, badge(r.error || "error", "failed"), " ", r.output)]))));
      const tests = Object.entries(t.outcomes).map(([test, outcome]) => el("tr", {}, el("td", {}, el("code", { text: test })), el("td", {}, badge(outcome))));
      return [
        el("p", { class: "small", text: `${t.run} · task ${t.task} · seed ${shown(t.seed)} · tokens in/out ${shown(t.tokens[0])}/${shown(t.tokens[1])}` + (t.suspect ? " · evaluation suspect" : "") }),
        ...section("Memory injected", t.memory ? pre(t.memory) : el("p", { text: "none" })),
        ...section("Steps", steps.length ? steps : [el("p", { text: "no step" })]),
        ...section("Patch", pre(t.patch || "(empty)")),
        ...section("Tests", tests.length ? table(["test", "outcome"], tests) : el("p", { text: "no outcome recorded" })),
      ];
    },
  };

  async function vehicleBrowser(root, data) {
    const questions = await unpack(data.questions);
    const items = [];
    for (const run of data.runs) {
      for (const e of await unpack(data.episodes[run])) {
        const q = questions[e.q];
        e.run = run;
        e.key = `${run}:${e.id}`;
        e.filters = { run: run, type: q.type, label: e.label, scenario: String(q.scenario) };
        e.text = `${e.id} qa_${q.scenario} #${q.index} ${q.query}`.toLowerCase();
        items.push(e);
      }
    }
    const order = new Map(data.runs.map((run, n) => [run, n]));
    const rank = (e) => [questions[e.q].scenario, questions[e.q].index, e.trial, order.get(e.run)];
    items.sort((a, b) => {
      const x = rank(a), y = rank(b);
      const n = x.findIndex((value, i) => value !== y[i]);
      return n < 0 ? 0 : x[n] - y[n];
    });
    const kind = vehicle(questions);
    kind.options = { run: data.runs, type: data.types, label: data.labels, scenario: data.scenarios.map(String) };
    browser(root, items, kind);
  }

  async function codingBrowser(root, data) {
    const items = [];
    for (const run of data.runs) {
      for (const t of await unpack(data.episodes[run])) {
        t.run = run;
        t.key = `${run}:${t.id}`;
        t.filters = { run: run, task: t.task, resolved: t.resolved ? "yes" : "no", end: t.end };
        t.text = `${t.id} ${t.task}`.toLowerCase();
        items.push(t);
      }
    }
    browser(root, items, coding);
  }

  async function start() {
    themeSwitch();
    const starts = { "vehicle-data": vehicleBrowser, "coding-data": codingBrowser };
    for (const root of document.querySelectorAll("[data-browser]")) {
      const data = JSON.parse(document.getElementById(root.dataset.source).textContent);
      try {
        await starts[root.dataset.source](root, data);
      } catch (error) {
        root.querySelector("[data-count]").textContent = "could not unpack the episodes: " + error;
      }
    }
    document.documentElement.dataset.ready = "yes";
  }

  start();
})();
