// arena report: draws the standings, charts, game list and replay viewer from
// the JSON in <script id="data">. Plain JS, no network. Every piece of text
// from the data goes in through textContent or setAttribute, never as markup.
(function () {
  "use strict";

  var DATA = JSON.parse(document.getElementById("data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";
  var PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#7f7f7f", "#1f77b4", "#2ca02c"];
  var SEAT_COLORS = ["#c9a227", "#3b3b3b"];

  // ---- small DOM helpers -------------------------------------------------

  function el(tag, attrs) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }

  function svg(tag, attrs) {
    var node = document.createElementNS(SVGNS, tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }

  function setAttrs(node, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === "text") node.textContent = String(v);
      else if (k === "onclick") node.addEventListener("click", v);
      // Through the CSSOM, which a Content-Security-Policy without
      // 'unsafe-inline' (the ladder's pages) allows, unlike a style attribute.
      else if (k === "style") node.style.cssText = String(v);
      else node.setAttribute(k, String(v));
    });
  }

  // append(node, child, child, ...): children may be nodes, strings, numbers,
  // arrays of those, or null/undefined/false (skipped).
  function append(node) {
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); continue; }
      if (typeof child === "string" || typeof child === "number") child = document.createTextNode(String(child));
      node.appendChild(child);
    }
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function botColor(name) {
    var i = DATA.standings.bots.indexOf(name);
    return PALETTE[(i < 0 ? 0 : i) % PALETTE.length];
  }

  function fmtMs(ms) {
    if (ms >= 10000) return (ms / 1000).toFixed(1) + " s";
    if (ms >= 100) return ms.toFixed(0) + " ms";
    return ms.toFixed(1) + " ms";
  }

  function fmtDuration(ms) {
    if (ms < 1000) return ms + " ms";
    var s = ms / 1000;
    if (s < 120) return s.toFixed(1) + " s";
    return Math.floor(s / 60) + " min " + Math.round(s % 60) + " s";
  }

  // "Nice" axis ticks between lo and hi.
  function ticks(lo, hi, count) {
    if (!(hi > lo)) { hi = lo + 1; }
    var raw = (hi - lo) / Math.max(1, count);
    var mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 2.5, 5, 10].map(function (m) { return m * mag; })
      .find(function (s) { return s >= raw; }) || 10 * mag;
    var out = [];
    for (var t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(+t.toFixed(10));
    return out;
  }

  // ---- the report view ---------------------------------------------------

  function renderSummary() {
    var kinds = DATA.kinds || {};
    var parts = Object.keys(kinds).map(function (k) { return kinds[k] + " " + k; });
    document.getElementById("summary").textContent =
      DATA.total_games + " games" + (parts.length ? " (" + parts.join(", ") + ")" : "") +
      ", " + DATA.standings.bots.length + " bots. Standings from " + DATA.standings.source +
      ". Made by " + DATA.generator + ".";
  }

  function renderStandings() {
    var t = DATA.standings;
    var head = el("tr", null, t.columns.map(function (c, i) {
      return el("th", { "class": t.numeric[i] ? "num" : null, text: c });
    }));
    var body = t.rows.map(function (row) {
      return el("tr", null, row.map(function (cell, i) {
        if (t.columns[i] === "bot") {
          return el("td", { "class": "bot" },
            el("span", { "class": "swatch", style: "background:" + botColor(cell) }),
            el("span", { "class": "botname", text: cell }));
        }
        return el("td", { "class": t.numeric[i] ? "num" : null, text: cell });
      }));
    });
    var table = el("table", { id: "standings-table", "class": "data" },
      el("thead", null, head), el("tbody", null, body));
    append(clear(document.getElementById("standings")), table);
    renderSeats();
    renderRunFacts();
  }

  // How the games were played: the manifest's conditions and the forfeits.
  function renderRunFacts() {
    var box = document.getElementById("run-facts");
    var rows = DATA.run_facts || [];
    if (!box) return;
    var body = rows.map(function (r) {
      return el("tr", null, el("th", { text: r[0] }), el("td", { text: r[1] }));
    });
    append(clear(box), el("table", { id: "run-facts-table", "class": "data" }, el("tbody", null, body)));
  }

  // The seats' line from summary.json: seat 0's score and the first seat's
  // advantage fitted with the ratings (docs/statistics.md, "Seat advantage").
  function renderSeats() {
    var s = DATA.ratings_summary;
    var box = document.getElementById("seats");
    if (!s || !box) return;
    var signed = function (x) { return (x >= 0 ? "+" : "") + x.toFixed(0); };
    var level = (100 * s.confidence).toFixed(Math.round(1000 * s.confidence) % 10 ? 1 : 0) + "%";
    var text = "Seat 0 scored " + (s.seat0_score === null ? "-" : (100 * s.seat0_score).toFixed(1) + "%") +
      " of " + s.games + " games (" + s.seat0_wins + " seat-0 wins, " + s.draws + " draws, " +
      s.seat1_wins + " seat-1 wins). ";
    if (s.seat0_advantage_elo !== null) {
      text += "Seat 0 advantage " + (s.seat0_advantage_elo >= 0 ? "+" : "") + s.seat0_advantage_elo.toFixed(1) +
        " Elo [" + (s.seat0_advantage_lo === null ? "-inf" : signed(s.seat0_advantage_lo)) + ", " +
        (s.seat0_advantage_hi === null ? "inf" : signed(s.seat0_advantage_hi)) + "] (" + level +
        " interval), fitted with the Bradley-Terry ratings.";
    } else {
      text += "Seat 0 advantage: " + s.seat0_advantage_note + ".";
    }
    box.textContent = text;
  }

  function renderRatingChart() {
    var chart = DATA.rating_chart;
    var box = clear(document.getElementById("rating-chart"));
    if (!chart.bars.length) { append(box, el("p", { "class": "muted", text: "No games yet." })); return; }
    var longest = Math.max.apply(null, chart.bars.map(function (b) { return b.bot.length; }));
    var labelW = Math.min(330, Math.max(90, 20 + 7.5 * longest)), W = 860, rowH = 28, top = 16, bottom = 40;
    var H = top + bottom + rowH * chart.bars.length;
    var lo = Math.min.apply(null, chart.bars.map(function (b) { return b.lo; }).concat([chart.reference]));
    var hi = Math.max.apply(null, chart.bars.map(function (b) { return b.hi; }).concat([chart.reference]));
    var pad = (hi - lo) * 0.05 || 1;
    lo -= pad; hi += pad;
    var x = function (v) { return labelW + (W - labelW - 20) * (v - lo) / (hi - lo); };
    var root = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, "class": "chart", role: "img",
      "aria-label": chart.label });
    ticks(lo, hi, 8).forEach(function (t) {
      append(root, svg("line", { x1: x(t), x2: x(t), y1: top - 6, y2: H - bottom + 4, "class": "grid" }));
      append(root, svg("text", { x: x(t), y: H - bottom + 18, "text-anchor": "middle", "class": "tick", text: t }));
    });
    append(root, svg("line", { x1: x(chart.reference), x2: x(chart.reference), y1: top - 6, y2: H - bottom + 4,
      "class": "reference" }));
    chart.bars.forEach(function (b, i) {
      var y = top + rowH * i + rowH / 2;
      var c = botColor(b.bot);
      var name = b.bot.length > 42 ? b.bot.slice(0, 40) + "\u2026" : b.bot;
      append(root, svg("text", { x: labelW - 10, y: y + 4, "text-anchor": "end", "class": "label", text: name },
        svg("title", { text: b.bot })));
      append(root, svg("line", { x1: x(b.lo), x2: x(b.hi), y1: y, y2: y, stroke: c, "stroke-width": 4,
        "stroke-linecap": "round" }));
      append(root, svg("line", { x1: x(b.lo), x2: x(b.lo), y1: y - 7, y2: y + 7, stroke: c, "stroke-width": 2 }));
      append(root, svg("line", { x1: x(b.hi), x2: x(b.hi), y1: y - 7, y2: y + 7, stroke: c, "stroke-width": 2 }));
      append(root, svg("circle", { cx: x(b.value), cy: y, r: 6, fill: c, stroke: "#fff", "stroke-width": 1.5 },
        svg("title", { text: b.bot + ": " + b.value.toFixed(1) + " [" + b.lo.toFixed(1) + ", " + b.hi.toFixed(1) + "]" })));
    });
    append(root, svg("text", { x: (labelW + W) / 2, y: H - 6, "text-anchor": "middle", "class": "axis-label",
      text: chart.label }));
    append(box, root);
  }

  // red (0) -> pale (0.5) -> green (1)
  function heat(frac) {
    var a = [214, 96, 77], m = [247, 247, 247], b = [77, 172, 104];
    var from = frac < 0.5 ? a : m, to = frac < 0.5 ? m : b;
    var t = frac < 0.5 ? frac * 2 : (frac - 0.5) * 2;
    var c = from.map(function (v, i) { return Math.round(v + (to[i] - v) * t); });
    return "rgb(" + c.join(",") + ")";
  }

  function fmtPoints(p) { return (p % 1 === 0) ? String(p) : p.toFixed(1); }

  function renderCrosstable() {
    var ct = DATA.crosstable;
    var box = clear(document.getElementById("crosstable"));
    if (!ct.bots.length) return;
    var head = el("tr", null, el("th", { text: "" }), ct.bots.map(function (b, j) {
      return el("th", { "class": "num", title: b, text: "#" + (j + 1) });
    }), el("th", { "class": "num", text: "score" }));
    var rows = ct.bots.map(function (b, i) {
      var total = 0, games = 0;
      var cells = ct.bots.map(function (_, j) {
        if (i === j) return el("td", { "class": "diag" });
        var g = ct.games[i][j], p = ct.points[i][j];
        total += p; games += g;
        if (!g) return el("td", { "class": "num empty", text: "" });
        return el("td", { "class": "num heat", style: "background:" + heat(p / g),
          title: b + " vs " + ct.bots[j] + ": " + fmtPoints(p) + " of " + g,
          text: fmtPoints(p) + "/" + g });
      });
      return el("tr", null, el("th", { "class": "rowhead" }, "#" + (i + 1) + " ", el("span", { text: b })), cells,
        el("td", { "class": "num", text: games ? (100 * total / games).toFixed(0) + "%" : "" }));
    });
    append(box, el("table", { id: "crosstable-table", "class": "data heatmap" },
      el("thead", null, head), el("tbody", null, rows)));
    append(box, el("p", { "class": "muted small", text: "Points the row bot scored against the column bot, of games played; green wins, red losses." }));
  }

  function renderTimeline() {
    var tl = DATA.timeline;
    var box = clear(document.getElementById("timeline"));
    var n = tl.games.length;
    if (!n) { append(box, el("p", { "class": "muted", text: "No games yet." })); return; }
    // Steps may be a sample of the games (every k-th and the last): x is
    // the number of games played.
    var played = tl.played || tl.games.map(function (_, k) { return k + 1; });
    var total = played[n - 1];
    var W = 560, H = 300, L = 44, R = 12, T = 12, B = 36;
    var maxY = 0;
    tl.points.forEach(function (s) { s.forEach(function (v) { if (v > maxY) maxY = v; }); });
    maxY = Math.max(1, maxY);
    var xg = function (g) { return L + (W - L - R) * (total === 1 ? 1 : (g - 1) / (total - 1)); };
    var x = function (k) { return xg(played[k]); };
    var y = function (v) { return T + (H - T - B) * (1 - v / maxY); };
    var root = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, "class": "chart", role: "img",
      "aria-label": "cumulative points per bot by game" });
    ticks(0, maxY, 5).forEach(function (t) {
      append(root, svg("line", { x1: L, x2: W - R, y1: y(t), y2: y(t), "class": "grid" }));
      append(root, svg("text", { x: L - 6, y: y(t) + 4, "text-anchor": "end", "class": "tick", text: t }));
    });
    ticks(1, total, 6).forEach(function (t) {
      if (t < 1 || t > total || t % 1) return;
      append(root, svg("text", { x: xg(t), y: H - B + 16, "text-anchor": "middle", "class": "tick", text: t }));
    });
    append(root, svg("text", { x: (L + W) / 2, y: H - 4, "text-anchor": "middle", "class": "axis-label",
      text: "games played" }));
    tl.points.forEach(function (series, b) {
      var pts = series.map(function (v, k) { return x(k).toFixed(1) + "," + y(v).toFixed(1); }).join(" ");
      if (n === 1) pts = L + "," + y(0) + " " + pts;
      append(root, svg("polyline", { points: pts, fill: "none", stroke: botColor(tl.bots[b]), "stroke-width": 2 },
        svg("title", { text: tl.bots[b] + ": " + fmtPoints(series[n - 1]) + " points" })));
    });
    append(box, root);
    append(box, el("div", { "class": "legend" }, tl.bots.map(function (b) {
      return el("span", { "class": "legend-item" }, el("span", { "class": "swatch", style: "background:" + botColor(b) }),
        el("span", { text: b }));
    })));
  }

  // Whether game g's replay can be opened: embedded, or in a block file.
  function hasReplay(g) { return !!(g.moves || DATA.blocks); }

  function renderGames() {
    var box = clear(document.getElementById("games"));
    var cols = ["#", "round", "game", "seat 0", "seat 1", "result", "reason", "plies", "scores", "time", ""];
    var numeric = { "#": 1, round: 1, plies: 1, scores: 1, time: 1 };
    var head = el("tr", null, cols.map(function (c) { return el("th", { "class": numeric[c] ? "num" : null, text: c }); }));
    var rows = DATA.games.map(function (g) {
      var replay = hasReplay(g) ? el("a", { href: "#game=" + g.index, text: "replay" }) : el("span", { "class": "muted", text: "-" });
      var reason = g.reason + (g.offender !== undefined ? " (seat " + g.offender + ")" : "");
      return el("tr", null,
        el("td", { "class": "num" }, hasReplay(g) ? el("a", { href: "#game=" + g.index, text: g.index }) : String(g.index)),
        el("td", { "class": "num", text: g.round }),
        el("td", { text: g.game }),
        el("td", { "class": "bot" + (g.result === "1-0" ? " winner" : "") }, el("span", { text: g.seats[0] })),
        el("td", { "class": "bot" + (g.result === "0-1" ? " winner" : "") }, el("span", { text: g.seats[1] })),
        el("td", { "class": "result", text: g.result }),
        el("td", { "class": "reason " + g.reason, title: g.detail || null, text: reason }),
        el("td", { "class": "num", text: g.plies }),
        el("td", { "class": "num", text: g.scores[0] + "-" + g.scores[1] }),
        el("td", { "class": "num", text: fmtDuration(g.duration_ms) }),
        el("td", null, replay));
    });
    var sel = DATA.selection;
    if (sel && !sel.all_listed) {
      append(box, el("p", { "class": "muted", text: "Listed: " + DATA.games.length + " of " + DATA.total_games +
        " games: the last " + sel.last_per_pairing + " of each pairing, the first " +
        Math.min(sel.forfeits, sel.max_forfeits) + " of " + sel.forfeits + " forfeits" +
        (sel.asked.length ? ", and games " + sel.asked.join(", ") : "") +
        " (`arena report --games K,K` adds games). The crosstable sums up every pairing." }));
    }
    if (DATA.blocks) {
      var input = el("input", { id: "open-game", type: "number", min: 0, step: 1, "aria-label": "game index" });
      var open = function (e) {
        e.preventDefault();
        if (input.value !== "") location.hash = "game=" + Number(input.value);
      };
      var form = el("form", { id: "open-game-form", "class": "open-game" },
        el("label", { "for": "open-game", text: "Open any game by its index: " }), input,
        el("button", { type: "submit", text: "open" }));
      form.addEventListener("submit", open);
      append(box, form);
    }
    append(box, el("table", { id: "games-table", "class": "data" }, el("thead", null, head), el("tbody", null, rows)));
    if (!DATA.blocks && DATA.games.length > DATA.replays) {
      append(box, el("p", { "class": "muted", text: "Replays are embedded for " + DATA.replays +
        " games only, to keep this page small enough to open; draw the others with `arena show games.jsonl --index K`." }));
    }
  }

  // ---- state notations ---------------------------------------------------

  function fields(state) {
    var out = {};
    state.trim().split(/\s+/).forEach(function (f) {
      var i = f.indexOf("=");
      if (i > 0) out[f.slice(0, i)] = f.slice(i + 1);
    });
    return out;
  }

  // ---- boards ------------------------------------------------------------

  // The replay viewer's drawers, by the key arena's game registry gives each
  // game (`drawer` in the data). A game without one (or with a key this page
  // does not know) gets no board: its replay says so and shows the states
  // as text. Each game's drawer is its own script (arena-core's
  // games/<game>_view.js, GameEntry::replay_drawer): arena's html.rs puts
  // one `DRAWERS[key] = (script);` line per game in place of the marker
  // below, and refuses a report.js without the marker.
  var DRAWERS = {};
  /* @game-drawers@ */

  function drawerOf(g) {
    return g.drawer && Object.prototype.hasOwnProperty.call(DRAWERS, g.drawer) ? DRAWERS[g.drawer] : null;
  }

  // The board of game g at `state`, or null when there is no drawer for g.
  function boardSvg(g, state, lastMove, prevState, effects) {
    var draw = drawerOf(g);
    return draw ? draw(state, g.seats, lastMove, prevState, effects) : null;
  }

  // ---- the replay viewer -------------------------------------------------

  var replay = null; // { game, ply }
  // Where the replay's "back" link goes: the report, or what a page that
  // shows one game alone says (`back` in its data).
  var BACK = DATA.back || { href: "#", text: "\u2190 back to the report" };

  // Replays not embedded come from replays/block-NNNNN.js, loaded one block
  // at a time when a game of it is opened: each line of a block calls
  // arenaReplay(game). A <script> element, because file:// pages may not
  // fetch.
  var LOADED = {};
  var BLOCKS = {}; // block number -> "loading" | "loaded" | "failed"
  var onBlock = null; // called once a block finished loading (the self-test)
  window.arenaReplay = function (g) {
    if (g && typeof g.index === "number" && Array.isArray(g.moves)) LOADED[g.index] = g;
  };

  function gameByIndex(k) {
    for (var i = 0; i < DATA.games.length; i++) if (DATA.games[i].index === k) return DATA.games[i];
    return null;
  }

  function blockOf(k) { return Math.floor(k / DATA.blocks.games); }

  function loadBlock(k, done) {
    var b = blockOf(k);
    if (BLOCKS[b]) return false;
    BLOCKS[b] = "loading";
    var name = String(b);
    while (name.length < 5) name = "0" + name;
    var script = document.createElement("script");
    var finish = function (state) {
      BLOCKS[b] = state;
      script.parentNode.removeChild(script);
      done();
      if (onBlock) { var f = onBlock; onBlock = null; f(state); }
    };
    script.addEventListener("load", function () { finish("loaded"); });
    script.addEventListener("error", function () { finish("failed"); });
    script.setAttribute("src", DATA.blocks.dir + "/block-" + name + ".js");
    document.head.appendChild(script);
    return true;
  }

  function openReplay(k, ply) {
    var g = gameByIndex(k);
    if (!(g && g.moves) && LOADED[k]) g = LOADED[k];
    var box = clear(document.getElementById("replay"));
    document.getElementById("report").hidden = true;
    box.hidden = false;
    if (!g || !g.moves) {
      replay = null;
      append(box, el("p", null, el("a", { href: BACK.href, text: BACK.text })));
      if (DATA.blocks && k >= 0 && k % 1 === 0 && loadBlock(k, function () {
        // Still the game asked for: draw it (or say why not).
        var p = new URLSearchParams(location.hash.slice(1));
        if (Number(p.get("game")) === k) openReplay(k, ply);
      })) {
        append(box, el("p", { id: "loading", text: "Loading game " + k + "\u2026" }));
        return;
      }
      append(box, el("p", { id: "no-replay", text: g ? "Game " + k + " has no replay here; use `arena show --index " + k + "`." :
        "There is no game " + k + (DATA.blocks ? " in this report." : ".") }));
      return;
    }
    replay = { game: g, ply: Math.max(0, Math.min(g.moves.length, isNaN(ply) ? 0 : ply)) };
    var params = Object.keys(g.params).map(function (key) { return key + "=" + g.params[key]; }).join(" ");
    append(box, el("p", { "class": "back" }, el("a", { href: BACK.href, text: BACK.text })));
    append(box, el("h2", { "class": "replay-title" }, "Game " + g.index + ": ",
      el("span", { "class": "seat0-name", text: g.seats[0] }), " vs ",
      el("span", { "class": "seat1-name", text: g.seats[1] })));
    append(box, el("p", { "class": "meta", text: g.game + (params ? " (" + params + ")" : "") + " \u00B7 seed " + g.seed +
      " \u00B7 round " + g.round + " \u00B7 result " + g.result + " (" + g.reason +
      (g.detail ? ": " + g.detail : "") + ") \u00B7 scores " + g.scores[0] + "-" + g.scores[1] + " \u00B7 " + g.plies +
      " plies \u00B7 " + fmtDuration(g.duration_ms) }));
    // Each seat's stderr log and transcript, where the run kept them.
    var files = [0, 1].map(function (seat) {
      var f = (g.files || [])[seat] || {};
      var links = [["log", "stderr"], ["transcript", "transcript"]].filter(function (k) { return f[k[0]]; })
        .map(function (k) { return el("a", { href: f[k[0]], "class": "seat-file " + k[0], text: k[1] }); });
      if (!links.length) return null;
      var parts = [el("span", { "class": "seat" + seat + "-name", text: g.seats[seat] }), ": "];
      links.forEach(function (a, i) { if (i) parts.push(", "); parts.push(a); });
      return el("span", { "class": "seat-files" }, parts);
    }).filter(Boolean);
    if (files.length) {
      var line = [];
      files.forEach(function (f, i) { if (i) line.push(" \u00B7 "); line.push(f); });
      append(box, el("p", { id: "seat-files", "class": "meta" }, line));
    }
    var controls = el("div", { "class": "controls" },
      el("button", { id: "first", type: "button", title: "first (Home)", text: "|\u25C0", onclick: function () { go(0); } }),
      el("button", { id: "prev", type: "button", title: "back (\u2190)", text: "\u25C0", onclick: function () { go(replay.ply - 1); } }),
      el("button", { id: "next", type: "button", title: "forward (\u2192)", text: "\u25B6", onclick: function () { go(replay.ply + 1); } }),
      el("button", { id: "last", type: "button", title: "last (End)", text: "\u25B6|", onclick: function () { go(replay.game.moves.length); } }),
      el("span", { id: "ply-label", "class": "ply-label" }));
    var slider = el("input", { id: "ply-slider", type: "range", min: 0, max: g.moves.length, value: replay.ply,
      "aria-label": "ply" });
    slider.addEventListener("input", function () { go(Number(slider.value)); });
    var moveRows = g.moves.map(function (m, i) {
      return el("tr", { "data-ply": i + 1, "class": "seat" + m.seat + (i < g.opening_plies ? " opening" : ""),
        onclick: function () { go(i + 1); } },
        el("td", { "class": "num", text: i + 1 }),
        el("td", null, el("span", { "class": "seat-dot seat" + m.seat }), el("span", { text: g.seats[m.seat] })),
        el("td", { "class": "mv", text: m.move }),
        el("td", { "class": "num", text: i < g.opening_plies ? "opening" : fmtMs(m.ms) }),
        el("td", { "class": "num", text: m.cpu_ms == null ? "" : fmtMs(m.cpu_ms) }),
        el("td", { "class": "num", text: m.info && m.info.length ? String(m.info.length) : "" }));
    });
    var startRow = el("tr", { "data-ply": 0, onclick: function () { go(0); } },
      el("td", { "class": "num", text: 0 }), el("td", { colspan: 5, "class": "muted", text: "initial position" }));
    var moveTable = el("table", { id: "movelist", "class": "data moves" },
      el("thead", null, el("tr", null, ["ply", "player", "move", "time", "cpu", "info"].map(function (c) {
        return el("th", { "class": c === "ply" || c === "time" || c === "cpu" || c === "info" ? "num" : null,
          title: c === "time" ? "wall time from go to move" : c === "cpu" ? "CPU time of all the bot's processes" : null,
          text: c });
      }))),
      el("tbody", null, startRow, moveRows));
    append(box, el("div", { "class": "replay-grid" },
      el("div", { "class": "board-col" },
        el("div", { id: "board", "class": "board-box" }),
        controls, slider,
        el("div", { id: "move-detail", "class": "move-detail" }),
        el("h3", { text: "Clock used per move" }),
        el("div", { id: "clock-chart" }),
        el("div", { id: "eval-chart" })),
      el("div", { "class": "moves-col" }, el("h3", { text: "Moves" }), el("div", { "class": "moves-scroll" }, moveTable))));
    renderClockChart(g);
    renderEvalChart(g);
    show();
  }

  // Each bot's own evaluation after each of its moves (the `score` of its
  // `info` lines, from its point of view, as engines report it), where it
  // reported one.
  function renderEvalChart(g) {
    var box = clear(document.getElementById("eval-chart"));
    var n = g.moves.length;
    var pts = [];
    g.moves.forEach(function (m, i) {
      var v = m.search ? Number(m.search.score) : NaN;
      if (m.search && m.search.score !== undefined && isFinite(v)) pts.push({ ply: i + 1, seat: m.seat, v: v });
    });
    if (!pts.length) return;
    var W = 560, H = 130, L = 52, B = 20, T = 8;
    var lo = Math.min(0, Math.min.apply(null, pts.map(function (p) { return p.v; })));
    var hi = Math.max(0, Math.max.apply(null, pts.map(function (p) { return p.v; })));
    if (hi === lo) hi = lo + 1;
    var x = function (ply) { return L + (W - L - 4) * (n === 1 ? 1 : (ply - 1) / (n - 1)); };
    var y = function (v) { return T + (H - T - B) * (hi - v) / (hi - lo); };
    var root = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, "class": "chart eval" });
    ticks(lo, hi, 4).forEach(function (t) {
      append(root, svg("line", { x1: L, x2: W, y1: y(t), y2: y(t), "class": t === 0 ? "axis" : "grid" }));
      append(root, svg("text", { x: L - 4, y: y(t) + 4, "text-anchor": "end", "class": "tick", text: String(t) }));
    });
    [0, 1].forEach(function (seat) {
      var mine = pts.filter(function (p) { return p.seat === seat; });
      if (mine.length > 1) {
        append(root, svg("polyline", { fill: "none", stroke: SEAT_COLORS[seat], "stroke-width": 1.5,
          points: mine.map(function (p) { return x(p.ply).toFixed(1) + "," + y(p.v).toFixed(1); }).join(" ") }));
      }
      mine.forEach(function (p) {
        var dot = svg("circle", { cx: x(p.ply), cy: y(p.v), r: 2.5, fill: SEAT_COLORS[seat], "class": "eval-point", "data-ply": p.ply },
          svg("title", { text: "ply " + p.ply + ": " + g.seats[seat] + " says " + p.v }));
        dot.addEventListener("click", function () { go(p.ply); });
        append(root, dot);
      });
    });
    append(box, el("h3", { text: "Evaluation (each bot's reported score)" }));
    append(box, root);
  }

  function renderClockChart(g) {
    var box = clear(document.getElementById("clock-chart"));
    var n = g.moves.length;
    if (!n) return;
    var W = 560, H = 110, L = 52, B = 20, T = 8;
    var maxMs = Math.max.apply(null, g.moves.map(function (m) { return m.ms; }).concat([1]));
    var bw = (W - L - 4) / n;
    var root = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, "class": "chart clock" });
    ticks(0, maxMs, 3).forEach(function (t) {
      var y = T + (H - T - B) * (1 - t / maxMs);
      append(root, svg("line", { x1: L, x2: W, y1: y, y2: y, "class": "grid" }));
      append(root, svg("text", { x: L - 4, y: y + 4, "text-anchor": "end", "class": "tick", text: fmtMs(t) }));
    });
    g.moves.forEach(function (m, i) {
      var h = (H - T - B) * m.ms / maxMs;
      var bar = svg("rect", { x: L + bw * i, y: H - B - h, width: Math.max(0.5, bw - (bw > 3 ? 1 : 0)), height: Math.max(0.5, h),
        fill: SEAT_COLORS[m.seat], "data-ply": i + 1 },
        svg("title", { text: "ply " + (i + 1) + ": " + m.move + " " + fmtMs(m.ms) }));
      bar.addEventListener("click", function () { go(i + 1); });
      append(root, bar);
    });
    append(root, svg("line", { id: "clock-cursor", x1: 0, x2: 0, y1: T, y2: H - B, "class": "cursor" }));
    append(root, svg("text", { x: L, y: H - 4, "class": "tick", text: "ply 1" }));
    append(root, svg("text", { x: W, y: H - 4, "text-anchor": "end", "class": "tick", text: "ply " + n }));
    append(box, root);
    append(box, el("div", { "class": "legend" }, [0, 1].map(function (seat) {
      return el("span", { "class": "legend-item" }, el("span", { "class": "swatch", style: "background:" + SEAT_COLORS[seat] }),
        el("span", { text: "seat " + seat + ": " + g.seats[seat] }));
    })));
  }

  function go(ply) {
    if (!replay) return;
    var n = replay.game.moves.length;
    replay.ply = Math.max(0, Math.min(n, ply));
    show();
    var params = new URLSearchParams(location.hash.slice(1));
    params.set("game", replay.game.index);
    params.set("ply", replay.ply);
    try {
      history.replaceState(null, "", "#" + params.toString().replace(/=(&|$)/g, "$1"));
    } catch (e) { /* some browsers refuse it on file:// pages; the address is only a convenience */ }
  }

  function show() {
    var g = replay.game, p = replay.ply, n = g.moves.length;
    var state = p === 0 ? g.initial_state : g.moves[p - 1].state;
    var last = p === 0 ? null : g.moves[p - 1];
    var board = clear(document.getElementById("board"));
    try {
      var before = p === 0 ? null : (p === 1 ? g.initial_state : g.moves[p - 2].state);
      var drawn = boardSvg(g, state, last ? last.move : null, before, last ? last.effects : null);
      if (drawn) {
        append(board, drawn);
      } else {
        append(board, el("p", { "class": "no-drawer muted", text: "no drawer for this game (" + g.game + "): its states are shown as text" }));
        append(board, el("pre", { "class": "raw-state", text: state }));
      }
    } catch (e) {
      append(board, el("pre", { "class": "raw-state", text: state + "\n(" + e.message + ")" }));
    }
    document.getElementById("ply-label").textContent = "ply " + p + " / " + n;
    document.getElementById("ply-slider").value = p;
    document.getElementById("first").disabled = document.getElementById("prev").disabled = p === 0;
    document.getElementById("next").disabled = document.getElementById("last").disabled = p === n;
    var detail = clear(document.getElementById("move-detail"));
    if (!last) {
      append(detail, el("p", null, el("strong", { text: "Initial position." }), " " + g.seats[0] + " (seat 0) moves first."));
    } else {
      append(detail, el("p", null, el("strong", { text: "Ply " + p + ": " }),
        el("span", { "class": "seat-dot seat" + last.seat }),
        el("span", { text: g.seats[last.seat] + " (seat " + last.seat + ") played " }),
        el("code", { text: last.move }),
        el("span", { text: p <= g.opening_plies ? " (opening move chosen by the referee)" : " in " + fmtMs(last.ms) +
          (last.cpu_ms == null ? "" : " (CPU " + fmtMs(last.cpu_ms) + ")") })));
      if (last.effects !== undefined) {
        append(detail, el("p", { "class": "effects" }, el("span", { "class": "muted", text: "effects: " }),
          el("code", { text: JSON.stringify(last.effects) })));
      }
      if (last.info && last.info.length) {
        append(detail, el("pre", { "class": "info", text: last.info.join("\n") }));
      } else {
        append(detail, el("p", { "class": "muted small", text: "no info lines" }));
      }
    }
    if (p === n) {
      append(detail, el("p", { "class": "final", text: "Final: " + g.result + " (" + g.reason +
        (g.detail ? ": " + g.detail : "") + "), scores " + g.scores[0] + "-" + g.scores[1] + "." }));
    }
    append(detail, el("p", { "class": "state-text" }, el("code", { text: state })));
    var rows = document.querySelectorAll("#movelist tbody tr");
    rows.forEach(function (row) {
      var on = Number(row.getAttribute("data-ply")) === p;
      row.classList.toggle("current", on);
      if (on && row.scrollIntoView) {
        var sc = row.closest(".moves-scroll");
        if (sc) sc.scrollTop = Math.max(0, row.offsetTop - sc.clientHeight / 2);
      }
    });
    var cursor = document.getElementById("clock-cursor");
    if (cursor && n) {
      var x = 52 + (560 - 52 - 4) / n * (Math.max(1, p) - 0.5);
      cursor.setAttribute("x1", x);
      cursor.setAttribute("x2", x);
      cursor.style.display = p ? "" : "none";
    }
  }

  document.addEventListener("keydown", function (e) {
    if (!replay || document.getElementById("replay").hidden) return;
    if (e.target && e.target.tagName === "INPUT") return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var moves = { ArrowRight: 1, ArrowLeft: -1 };
    if (e.key in moves) { go(replay.ply + moves[e.key]); e.preventDefault(); }
    else if (e.key === "Home") { go(0); e.preventDefault(); }
    else if (e.key === "End") { go(replay.game.moves.length); e.preventDefault(); }
  });

  // ---- routing -----------------------------------------------------------

  function route() {
    var params = new URLSearchParams(location.hash.slice(1));
    if (params.has("game")) {
      openReplay(Number(params.get("game")), Number(params.get("ply") || 0));
    } else {
      replay = null;
      document.getElementById("replay").hidden = true;
      document.getElementById("report").hidden = false;
    }
  }

  // ---- self-test (only with #selftest in the address) --------------------
  // Steps the replay viewer and writes what it saw into <pre id="selftest">
  // as JSON, for the end-to-end test that loads this page in a browser.

  function boardMarkup() {
    var b = document.querySelector("#board svg");
    return b ? b.outerHTML : "";
  }

  var BLOCK_STATE = null;

  function selftest() {
    var out = { errors: window.__arenaErrors || [], checks: {} };
    try {
      if (BLOCK_STATE) {
        out.block = BLOCK_STATE;
        out.checks.block_replay_opened = !!replay && LOADED[replay.game.index] === replay.game;
        out.checks.block_board_drawn = !!replay && (boardMarkup().indexOf("<svg") === 0 ||
          !!document.querySelector("#board .raw-state"));
        out.block_game = replay ? replay.game.index : null;
      }
      out.standings_bots = Array.prototype.map.call(
        document.querySelectorAll("#standings-table tbody td.bot .botname"), function (td) { return td.textContent; });
      out.games_listed = document.querySelectorAll("#games-table tbody tr").length;
      out.charts = document.querySelectorAll("#rating-chart svg, #timeline svg").length;
      out.heatmap_cells = document.querySelectorAll("#crosstable-table td.heat").length;
      out.seats = (document.getElementById("seats") || {}).textContent || "";
      out.run_facts = {};
      Array.prototype.forEach.call(document.querySelectorAll("#run-facts-table tr"), function (tr) {
        out.run_facts[tr.querySelector("th").textContent] = tr.querySelector("td").textContent;
      });
      // How the games went (drawn by the page's HTML, not by this script).
      var all = function (sel, f) { return Array.prototype.map.call(document.querySelectorAll(sel), f); };
      out.course = {
        time_rows: all("#move-times-table tr.move-times", function (tr) {
          return { bot: tr.getAttribute("data-bot"), moves: Number(tr.children[1].textContent),
            ms: tr.getAttribute("data-ms").split(" ").map(Number) };
        }),
        time_bars: document.querySelectorAll("#move-times-table svg.time-hist rect").length,
        length_games: all("#game-lengths-table tbody td", function (td) { return Number(td.textContent); }),
        length_counts: all("#game-lengths-chart rect.length-bin", function (r) { return Number(r.getAttribute("data-count")); }),
        elo_lines: all("#elo-trace polyline.elo-line", function (l) {
          return { bot: l.getAttribute("data-bot"), points: l.getAttribute("points").split(" ").length };
        }),
        llr: all("svg.llr-trace", function (svgEl) {
          return { bounds: svgEl.querySelectorAll(".llr-bound").length,
            points: svgEl.querySelector(".llr-line").getAttribute("points").split(" ").length,
            caption: svgEl.previousElementSibling.textContent };
        })
      };
      var course = document.querySelector("#report #course-section");
      out.checks.course_in_report = !!course;
      // Laid out unless a replay hides the report (#game=...).
      out.course.visible = !!course && course.getBoundingClientRect().height > 0;
      if (!replay) openReplay(DATA.games.length ? DATA.games[0].index : 0, 0);
      if (replay) {
        out.cpu_shown = Array.prototype.filter.call(
          document.querySelectorAll("#movelist tbody tr td:nth-child(5)"),
          function (td) { return td.textContent !== ""; }).length;
        out.eval_points = document.querySelectorAll("#eval-chart .eval-point").length;
        out.eval_titles = Array.prototype.map.call(document.querySelectorAll("#eval-chart .eval-point title"),
          function (t) { return t.textContent; });
        out.replay_meta = document.querySelector("#replay .meta").textContent;
        out.seat_files = Array.prototype.map.call(document.querySelectorAll("#seat-files a.seat-file"),
          function (a) { return a.getAttribute("href"); });
      }
      if (replay && drawerOf(replay.game)) {
        go(0);
        var start = boardMarkup();
        document.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));
        var afterKey = boardMarkup();
        document.getElementById("next").click();
        var afterClick = boardMarkup();
        document.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowLeft", bubbles: true }));
        document.getElementById("prev").click();
        var back = boardMarkup();
        out.checks.board_drawn = start.indexOf("<svg") === 0;
        out.checks.arrow_key_changes_board = afterKey !== start;
        out.checks.button_changes_board = afterClick !== afterKey;
        out.checks.back_restores_board = back === start;
        out.ply_label = document.getElementById("ply-label").textContent;
      } else if (replay) {
        go(0);
        var text0 = document.querySelector("#board .raw-state").textContent;
        go(1);
        out.checks.text_state_changes = document.querySelector("#board .raw-state").textContent !== text0;
        out.ply_label = document.getElementById("ply-label").textContent;
      }
      // Draw every embedded position of a game with a drawer once: no
      // notation may fail to render.
      var drawn = 0, failed = [];
      DATA.games.forEach(function (g) {
        if (!g.moves || !drawerOf(g)) return;
        [g.initial_state].concat(g.moves.map(function (m) { return m.state; })).forEach(function (st, i) {
          try { boardSvg(g, st, i ? g.moves[i - 1].move : null); drawn++; } catch (e) { failed.push(g.index + "@" + i + ": " + e.message); }
        });
      });
      out.positions_drawn = drawn;
      out.positions_failed = failed.slice(0, 10);
      if (drawn) out.checks.all_positions_drawn = failed.length === 0;
      // A game without a drawer says so in its replay.
      var plain = DATA.games.filter(function (g) { return g.moves && !drawerOf(g); })[0];
      if (plain) {
        var resume = replay ? { k: replay.game.index, ply: replay.ply } : null;
        openReplay(plain.index, 0);
        out.checks.no_drawer_shown = !!document.querySelector("#board .no-drawer") &&
          document.querySelector("#board .raw-state").textContent === plain.initial_state;
        if (resume) openReplay(resume.k, resume.ply);
      }
      if (replay) go(Math.min(2, replay.game.moves.length));
    } catch (e) {
      out.errors.push("selftest: " + e.message);
    }
    var pre = document.getElementById("selftest");
    pre.textContent = JSON.stringify(out);
  }

  // Other pages (the ladder's) reuse the viewer: "game" shows one game's
  // replay alone, "live" only lends the board drawers.
  window.arenaBoard = boardSvg;
  if (DATA.view === "game") {
    openReplay(DATA.games[0].index, Number(new URLSearchParams(location.hash.slice(1)).get("ply") || 0));
    return;
  }
  if (DATA.view === "live") return;
  renderSummary();
  renderStandings();
  renderRatingChart();
  renderCrosstable();
  renderTimeline();
  renderGames();
  window.addEventListener("hashchange", route);
  route();
  if (/(^|[#&])selftest(=|&|$)/.test(location.hash)) {
    // A game whose replay is in a block file: test once it has loaded.
    if (document.getElementById("loading")) onBlock = function (state) { BLOCK_STATE = state; selftest(); };
    else selftest();
  }
})();
