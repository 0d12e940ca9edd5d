// Collects script errors and console.error calls into window.__arenaErrors,
// so that the page's self-test (and anyone reading it) can see them.
(function () {
  "use strict";
  var errors = (window.__arenaErrors = []);
  window.addEventListener("error", function (e) {
    errors.push("error: " + (e.message || (e.target && e.target.src) || e.type) +
      (e.lineno ? " (line " + e.lineno + ")" : ""));
  }, true);
  window.addEventListener("unhandledrejection", function (e) {
    errors.push("unhandled rejection: " + String(e.reason));
  });
  var original = console.error;
  console.error = function () {
    errors.push("console.error: " + Array.prototype.map.call(arguments, String).join(" "));
    return original.apply(console, arguments);
  };
})();
