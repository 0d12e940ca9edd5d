// Ludus latrunculorum's board in the replay viewer: a JavaScript expression
// whose value is the drawer. arena-core's latrunculi_view.rs gives it to the
// registry (GameEntry::replay_drawer); the HTML report puts it inside
// report.js, whose helpers (svg, append, fields) it uses. Every piece of text
// goes in through textContent or setAttribute, never as markup.
(function () {
  function parseLatrunculi(state) {
    var f = fields(state || "");
    if (f.board === undefined) throw new Error("no board= in " + state);
    var ranks = f.board.split("/");
    var squares = [], width = null;
    ranks.forEach(function (rank) {
      var row = [], run = 0;
      for (var i = 0; i < rank.length; i++) {
        var c = rank[i];
        if (c >= "0" && c <= "9") { run = run * 10 + (c.charCodeAt(0) - 48); continue; }
        for (; run > 0; run--) row.push(null);
        var p = { X: [0, false], O: [1, false], x: [0, true], o: [1, true] }[c];
        if (!p) throw new Error("bad square " + c + " in " + state);
        row.push({ seat: p[0], trapped: p[1] });
      }
      for (; run > 0; run--) row.push(null);
      if (width === null) width = row.length;
      if (row.length !== width) throw new Error("ragged board in " + state);
      squares.push(row);
    });
    return { width: width, height: ranks.length, rows: squares, turn: Number(f.turn),
      phase: f.phase, hand: (f.hand || "0,0").split(",").map(Number), quiet: Number(f.quiet), ply: Number(f.ply) };
  }

  // ---- the board as SVG ---------------------------------------------------

  function squareName(file, rank) { return String.fromCharCode(97 + file) + (rank + 1); }

  function parseSquare(text) {
    var m = /^([a-z])(\d+)$/.exec(text);
    return m ? { file: m[1].charCodeAt(0) - 97, rank: Number(m[2]) - 1 } : null;
  }

  // effects: what the engine said the last move did; its `trapped` and
  // `freed` square lists, when present, are ringed.
  function latrunculiSvg(s, names, lastMove, effects) {
    var cell = Math.max(26, Math.min(56, Math.floor(520 / Math.max(s.width, s.height))));
    var L = 26, T = 30, B = 70;
    var W = L * 2 + cell * s.width, H = T + B + cell * s.height;
    var root = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, "class": "board latrunculi",
      role: "img", "aria-label": "Ludus latrunculorum position" });
    var turnText = (s.turn === 0 ? "\u25CB " : "\u25CF ") + "seat " + s.turn + ": " + names[s.turn] + " to " +
      (s.phase === "place" ? "place" : "move");
    append(root, svg("text", { x: W / 2, y: 18, "text-anchor": "middle", "class": "seat-label to-move", text: turnText }));
    var path = [], removed = null;
    if (lastMove) {
      if (lastMove[0] === "x") removed = parseSquare(lastMove.slice(1));
      else path = lastMove.split("-").map(parseSquare).filter(Boolean);
    }
    var px = function (file) { return L + cell * file; };
    var py = function (rank) { return T + cell * (s.height - 1 - rank); };
    for (var r = 0; r < s.height; r++) {
      for (var f = 0; f < s.width; f++) {
        var rank = s.height - 1 - r;
        append(root, svg("rect", { x: px(f), y: py(rank), width: cell, height: cell,
          "class": "sq " + ((f + rank) % 2 ? "light" : "dark"), "data-square": squareName(f, rank) }));
      }
    }
    path.forEach(function (sq, i) {
      append(root, svg("rect", { x: px(sq.file) + 1, y: py(sq.rank) + 1, width: cell - 2, height: cell - 2,
        "class": i === path.length - 1 ? "hl-to" : "hl-from" }));
    });
    if (path.length > 1) {
      var pts = path.map(function (sq) { return (px(sq.file) + cell / 2) + "," + (py(sq.rank) + cell / 2); }).join(" ");
      append(root, svg("polyline", { points: pts, "class": "move-path" }));
    }
    if (removed) {
      append(root, svg("rect", { x: px(removed.file) + 2, y: py(removed.rank) + 2, width: cell - 4, height: cell - 4,
        "class": "hl-removed" }));
    }
    var ring = function (list, cls) {
      if (!Array.isArray(list)) return;
      list.forEach(function (name) {
        var sq = typeof name === "string" ? parseSquare(name) : null;
        if (!sq || sq.file >= s.width || sq.rank >= s.height) return;
        append(root, svg("rect", { x: px(sq.file) + 3, y: py(sq.rank) + 3, width: cell - 6, height: cell - 6, rx: 6,
          "class": cls }));
      });
    };
    if (effects && typeof effects === "object") {
      ring(effects.trapped, "hl-trapped");
      ring(effects.freed, "hl-freed");
    }
    for (r = 0; r < s.height; r++) {
      for (f = 0; f < s.width; f++) {
        var p = s.rows[r][f];
        if (!p) continue;
        var cx = px(f) + cell / 2, cy = T + cell * r + cell / 2, rad = cell * 0.36;
        var g = svg("g", { "class": "piece seat" + p.seat + (p.trapped ? " trapped" : "") });
        append(g, svg("circle", { cx: cx, cy: cy, r: rad }));
        append(g, svg("circle", { cx: cx, cy: cy, r: rad * 0.62, "class": "inner" }));
        if (p.trapped) {
          var d = rad * 0.55;
          append(g, svg("path", { d: "M" + (cx - d) + " " + (cy - d) + "L" + (cx + d) + " " + (cy + d) +
            "M" + (cx + d) + " " + (cy - d) + "L" + (cx - d) + " " + (cy + d), "class": "trap-mark" }));
        }
        append(g, svg("title", { text: squareName(f, s.height - 1 - r) + ": seat " + p.seat + (p.trapped ? ", trapped" : "") }));
        append(root, g);
      }
    }
    for (f = 0; f < s.width; f++) {
      append(root, svg("text", { x: px(f) + cell / 2, y: T + cell * s.height + 16, "text-anchor": "middle",
        "class": "coord", text: String.fromCharCode(97 + f) }));
    }
    for (r = 0; r < s.height; r++) {
      append(root, svg("text", { x: L - 6, y: py(r) + cell / 2 + 4, "text-anchor": "end", "class": "coord", text: r + 1 }));
      append(root, svg("text", { x: W - L + 6, y: py(r) + cell / 2 + 4, "text-anchor": "start", "class": "coord", text: r + 1 }));
    }
    var count = function (seat) {
      var c = 0, t = 0;
      s.rows.forEach(function (row) { row.forEach(function (p) { if (p && p.seat === seat) { c++; if (p.trapped) t++; } }); });
      return c + " on board" + (t ? " (" + t + " trapped)" : "") + (s.phase === "place" ? ", " + s.hand[seat] + " in hand" : "");
    };
    var short = function (name) { return name.length > 28 ? name.slice(0, 27) + "\u2026" : name; };
    [0, 1].forEach(function (seat) {
      var legendY = T + cell * s.height + 36 + 18 * seat;
      append(root, svg("circle", { cx: L + 8, cy: legendY - 4, r: 7, "class": "legend-piece seat" + seat }));
      append(root, svg("text", { x: L + 22, y: legendY, "class": "legend-text",
        text: "seat " + seat + " " + short(names[seat]) + ": " + count(seat) }));
    });
    return root;
  }

  return function (state, names, lastMove, prevState, effects) {
    return latrunculiSvg(parseLatrunculi(state), names, lastMove, effects);
  };
})()
