// Dakon's board in the replay viewer: a JavaScript expression whose value is
// the drawer. arena-core's dakon_view.rs gives it to the registry
// (GameEntry::replay_drawer); the HTML report puts it inside report.js, whose
// helpers (svg, append, fields) it uses. Every piece of text goes in through
// textContent or setAttribute, never as markup.
(function () {
  function parseDakon(state) {
    var f = fields(state || "");
    if (f.pits === undefined) throw new Error("no pits= in " + state);
    var pits = f.pits.split(",").map(Number);
    if (pits.length % 2 || pits.some(isNaN)) throw new Error("bad pits in " + state);
    return { pits: pits, stores: (f.stores || "0,0").split(",").map(Number),
      turn: Number(f.turn), ply: Number(f.ply) };
  }

  // ---- the board as SVG ---------------------------------------------------

  // prev: the position before the last move (or null), to mark what changed.
  function dakonSvg(s, names, lastMove, prev) {
    var n = s.pits.length / 2;
    var step = 64, R = 25, storeW = 70, gap = 18, left = 16;
    var x0 = left + storeW + gap + step / 2;
    var W = left * 2 + storeW * 2 + gap * 2 + step * n;
    var topY = 78, botY = 158, H = 236;
    var total = s.pits.reduce(function (a, b) { return a + b; }, 0) + s.stores[0] + s.stores[1];
    var root = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, "class": "board dakon",
      role: "img", "aria-label": "Dakon position" });
    append(root, svg("rect", { x: 2, y: 26, width: W - 4, height: 184, rx: 40, "class": "dakon-wood" }));
    var label = function (seat, y) {
      var turn = s.turn === seat;
      return svg("text", { x: W / 2, y: y, "text-anchor": "middle", "class": "seat-label" + (turn ? " to-move" : "") },
        (turn ? "\u25B6 " : "") + "seat " + seat + ": " + names[seat] + (turn ? " to move" : ""));
    };
    append(root, label(1, 18), label(0, H - 6));
    var fillFor = function (count) {
      var t = Math.min(1, count / Math.max(1, total / n / 2));
      return "rgb(" + [Math.round(250 - 60 * t), Math.round(240 - 90 * t), Math.round(220 - 130 * t)].join(",") + ")";
    };
    var pit = function (i, cx, cy, labelY) {
      var played = lastMove !== null && String(i) === lastMove;
      var g = svg("g", { "class": "pit" + (played ? " played" : ""), "data-pit": i });
      append(g, svg("circle", { cx: cx, cy: cy, r: R, fill: fillFor(s.pits[i]) }));
      append(g, svg("text", { x: cx, y: cy + 7, "text-anchor": "middle", "class": "count", text: s.pits[i] }));
      append(g, svg("text", { x: cx, y: labelY, "text-anchor": "middle", "class": "pit-index", text: i }));
      var delta = prev && prev.pits.length === s.pits.length ? s.pits[i] - prev.pits[i] : 0;
      if (delta) {
        append(g, svg("text", { x: cx + R - 2, y: cy - R + 8, "text-anchor": "middle",
          "class": "delta " + (delta > 0 ? "up" : "down"), text: (delta > 0 ? "+" : "\u2212") + Math.abs(delta) }));
      }
      return g;
    };
    for (var i = 0; i < n; i++) {
      append(root, pit(i, x0 + step * i, topY, topY - R - 5));
      append(root, pit(n + i, x0 + step * i, botY, botY + R + 14));
    }
    var store = function (seat, x) {
      var g = svg("g", { "class": "store" + (s.turn === seat ? " to-move" : "") });
      append(g, svg("rect", { x: x, y: topY - R, width: storeW, height: botY - topY + 2 * R, rx: 32 }));
      append(g, svg("text", { x: x + storeW / 2, y: (topY + botY) / 2 + 9, "text-anchor": "middle", "class": "count store-count",
        text: s.stores[seat] }));
      append(g, svg("text", { x: x + storeW / 2, y: (topY + botY) / 2 + 28, "text-anchor": "middle", "class": "pit-index",
        text: "store " + seat }));
      var gain = prev ? s.stores[seat] - prev.stores[seat] : 0;
      if (gain) {
        append(g, svg("text", { x: x + storeW / 2, y: topY - R + 22, "text-anchor": "middle", "class": "delta up",
          text: "+" + gain }));
      }
      return g;
    };
    append(root, store(1, left), store(0, W - left - storeW));
    return root;
  }

  return function (state, names, lastMove, prevState) {
    var prev = null;
    if (prevState) {
      try { prev = parseDakon(prevState); } catch (e) { prev = null; }
    }
    return dakonSvg(parseDakon(state), names, lastMove, prev);
  };
})()
