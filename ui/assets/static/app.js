// The page works without this script; it only adds conveniences:
// "/" focuses the search box, and buttons with data-confirm ask first.
"use strict";
document.addEventListener("keydown", function (e) {
  if (e.key !== "/" || e.target.closest("input, textarea")) return;
  var q = document.querySelector("header input[type=search]");
  if (q) { e.preventDefault(); q.focus(); }
});
document.addEventListener("submit", function (e) {
  var b = e.submitter;
  var ask = b && b.getAttribute("data-confirm");
  if (ask && !window.confirm(ask)) e.preventDefault();
});
