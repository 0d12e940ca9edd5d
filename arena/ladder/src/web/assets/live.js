// arena ladder /live: the games in progress, their boards drawn by the
// report's drawers (window.arenaBoard, from report.js) and moved by the
// server's events (/live/events). Every text goes in through textContent.
(function () {
  "use strict";

  var boards = document.getElementById("live-boards");
  var status = document.getElementById("live-status");
  var games = {}; // id -> { game, node }

  function el(tag, cls, text) {
    var n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined) n.textContent = text;
    return n;
  }

  function draw(entry) {
    var g = entry.game, n = g.moves.length;
    var state = n ? g.moves[n - 1].state : g.initial_state;
    var last = n ? g.moves[n - 1] : null;
    var prev = n > 1 ? g.moves[n - 2].state : (n === 1 ? g.initial_state : null);
    var box = entry.node.querySelector(".board-box");
    while (box.firstChild) box.removeChild(box.firstChild);
    var svg = null;
    try {
      svg = window.arenaBoard ? window.arenaBoard(g, state, last ? last.move : null, prev, last ? last.effects : null) : null;
    } catch (e) { svg = null; }
    box.appendChild(svg || el("pre", "raw-state", state));
    entry.node.setAttribute("data-ply", String(n));
    entry.node.querySelector(".ply").textContent = n
      ? "ply " + n + ": " + g.seats[last.seat] + " played " + last.move
      : "ply 0: the game is starting";
  }

  function add(g) {
    var node = el("section", "live-game");
    node.setAttribute("data-id", String(g.id));
    var h = el("h3");
    var a = el("a", null, "Game " + g.id);
    a.href = "/games/" + g.id;
    h.appendChild(a);
    node.appendChild(h);
    var seats = el("p", "seats");
    seats.appendChild(el("span", "seat0-name", g.seats[0]));
    seats.appendChild(document.createTextNode(" vs "));
    seats.appendChild(el("span", "seat1-name", g.seats[1]));
    node.appendChild(seats);
    node.appendChild(el("div", "board-box"));
    node.appendChild(el("p", "ply small"));
    boards.appendChild(node);
    games[g.id] = { game: g, node: node };
    draw(games[g.id]);
  }

  function said() {
    var n = Object.keys(games).length;
    status.textContent = n ? n + " game" + (n === 1 ? "" : "s") + " in progress, updated as moves are made."
      : "No game in progress right now; new games appear here when they start.";
  }

  var source = new EventSource("/live/events");
  source.addEventListener("snapshot", function (e) {
    Object.keys(games).forEach(function (id) { boards.removeChild(games[id].node); });
    games = {};
    JSON.parse(e.data).forEach(add);
    said();
  });
  source.addEventListener("start", function (e) {
    var ev = JSON.parse(e.data);
    if (!games[ev.game.id]) add(ev.game);
    said();
  });
  source.addEventListener("move", function (e) {
    var ev = JSON.parse(e.data), entry = games[ev.id];
    if (!entry) return;
    // Plies arrive in order; one already held (after a snapshot) is skipped.
    if (ev.ply === entry.game.moves.length + 1) {
      entry.game.moves.push(ev.move);
      draw(entry);
    }
  });
  source.addEventListener("end", function (e) {
    var ev = JSON.parse(e.data), entry = games[ev.id];
    if (!entry) return;
    entry.node.classList.add("ended");
    entry.node.querySelector(".ply").textContent = ev.result ? "Finished: " + ev.result : "Stopped (back in the queue)";
    delete games[ev.id];
    setTimeout(function () { if (entry.node.parentNode) boards.removeChild(entry.node); }, 5000);
    said();
  });
  source.addEventListener("error", function () {
    status.textContent = "Connection lost; reconnecting…";
  });
})();
