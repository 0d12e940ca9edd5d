// arena ladder pages: small additions to tables and forms that work
// without it. Text from the server is moved as nodes or set with
// textContent, never parsed from strings into markup of our making.
(function () {
  "use strict";

  // Sortable tables: a button in each header cell sorts by that column
  // (numbers as numbers: "1734 ±45" sorts by 1734), again to reverse.
  function cellKey(td) {
    var t = (td ? td.textContent : "").trim();
    var n = parseFloat(t.replace(/^[^0-9.-]+/, ""));
    return isNaN(n) ? t.toLowerCase() : n;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, col) {
      var button = th.querySelector("button");
      if (!button) return;
      button.addEventListener("click", function () {
        var asc = th.getAttribute("aria-sort") !== "ascending";
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellKey(a.cells[col]), y = cellKey(b.cells[col]);
          var c = (typeof x === typeof y) ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === "number" ? -1 : 1);
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });

  // Refreshed sections (the author's bots while they build): the same page
  // fetched again and the section's new nodes moved in, open logs kept open.
  document.querySelectorAll("[data-refresh]").forEach(function (box) {
    var every = Number(box.getAttribute("data-refresh")) * 1000 || 3000;
    function refresh() {
      fetch(location.pathname, { credentials: "same-origin", headers: { Accept: "text/html" } })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (text) {
          if (text === null) return;
          var doc = new DOMParser().parseFromString(text, "text/html");
          var fresh = doc.getElementById(box.id);
          if (!fresh) return;
          var open = {};
          box.querySelectorAll("li[data-version] details[open]").forEach(function (d) {
            open[d.closest("li").getAttribute("data-version")] = true;
          });
          while (box.firstChild) box.removeChild(box.firstChild);
          while (fresh.firstChild) box.appendChild(document.adoptNode(fresh.firstChild));
          box.querySelectorAll("li[data-version]").forEach(function (li) {
            if (open[li.getAttribute("data-version")]) li.querySelector("details").open = true;
          });
        })
        .catch(function () { /* the next round tries again */ })
        .then(function () { setTimeout(refresh, every); });
    }
    setTimeout(refresh, every);
  });
})();
