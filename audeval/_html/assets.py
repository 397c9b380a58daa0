"""The style sheet and the script of a report page (inlined: the page loads nothing).

The script renders every data table of the page from the JSON block next to it
(``<script type="application/json">``): paged, sorted by a click on a column
header (a second click reverses), filtered by file name, by label and by the
range of one numeric column. Numbers are shown with the decimals the table
declares; the JSON holds them at full precision.
"""

CSS = """
:root { --fg: #1d1d1f; --muted: #5f6368; --line: #dadce0; --bg: #ffffff; --soft: #f6f7f9;
  --accent: #0072B2; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  background: var(--bg); margin: 0; }
header { padding: 18px 28px 10px; border-bottom: 1px solid var(--line); background: var(--soft); }
header h1 { font-size: 20px; margin: 0 0 4px; }
header p { margin: 2px 0; color: var(--muted); }
nav { margin-top: 8px; } nav a { margin-right: 14px; color: var(--accent); text-decoration: none; }
main { padding: 8px 28px 40px; max-width: 1280px; }
section { margin-top: 22px; }
h2 { font-size: 17px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 14px; margin: 16px 0 4px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; min-width: 170px;
  background: var(--soft); }
.card .name { color: var(--muted); font-size: 12px; }
.card .value { font-size: 24px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .ci { color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 9px; border-bottom: 1px solid var(--line); text-align: right;
  white-space: nowrap; }
th { background: var(--soft); position: sticky; top: 0; }
th.sortable { cursor: pointer; user-select: none; }
th.sortable:hover { background: #e8eaed; }
th[aria-sort="ascending"]::after { content: " \\25B2"; font-size: 10px; }
th[aria-sort="descending"]::after { content: " \\25BC"; font-size: 10px; }
td.text, th.text { text-align: left; }
tr.total td { font-weight: 600; }
.controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 6px 0; }
.controls input, .controls select, .controls button { font: inherit; padding: 2px 6px; }
.controls input.num { width: 80px; }
.pager { color: var(--muted); }
.options td, .options th { text-align: left; }
.legend { display: flex; gap: 14px; flex-wrap: wrap; font-size: 12px; color: var(--muted);
  margin: 4px 0; }
.legend span.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 4px;
  vertical-align: -2px; border: 1px solid #222; }
.timeline { margin: 10px 0 18px; }
.timeline h3 a { color: inherit; }
.timeline .summary { color: var(--muted); font-size: 12px; }
svg text { font-family: system-ui, sans-serif; }
.scroll { overflow-x: auto; }
.note { color: var(--muted); font-size: 12px; }
.span { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; margin: 10px 0; }
.span audio { height: 30px; vertical-align: middle; }
a.download { display: inline-block; padding: 5px 12px; border: 1px solid var(--accent);
  border-radius: 6px; color: var(--accent); text-decoration: none; }
"""


JS = r"""
(function () {
  "use strict";
  function fmt(v, digits) {
    if (v === null || v === undefined || v === "") return "";
    if (Array.isArray(v)) return v.join(", ");
    if (typeof v === "string") {
      if (v === "NaN") return "nan";
      if (v === "Infinity") return "inf";
      if (v === "-Infinity") return "-inf";
      return v;
    }
    if (digits === null || digits === undefined) return String(v);
    return v.toFixed(digits);
  }
  function num(v) {
    if (typeof v === "number") return v;
    if (v === "NaN" || v === null || v === undefined) return NaN;
    return Number(v);
  }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function compare(a, b, numeric) {
    if (numeric) {
      var x = num(a), y = num(b);
      var nx = isNaN(x), ny = isNaN(y);
      if (nx || ny) return nx === ny ? 0 : (nx ? 1 : -1);
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    return String(a) < String(b) ? -1 : (String(a) > String(b) ? 1 : 0);
  }
  function Table(host) {
    var spec = JSON.parse(document.getElementById(host.dataset.source).textContent);
    var cols = spec.columns, all = spec.rows, self = this;
    var pageSize = spec.page_size || 50, page = 0, sortCol = -1, sortDir = 1;
    var shown = all.slice();
    var textCol = cols.findIndex(function (c) { return c.filter === "text"; });
    var labelCol = cols.findIndex(function (c) { return c.filter === "labels"; });
    var controls = el("div", {"class": "controls"});
    var search = null, labelSelect = null, rangeCol = null, lo = null, hi = null;
    if (textCol >= 0) {
      search = el("input", {type: "search", placeholder: "filter " + cols[textCol].title,
        "class": "filter-text"});
      controls.appendChild(search);
    }
    if (labelCol >= 0) {
      labelSelect = el("select", {"class": "filter-label"});
      labelSelect.appendChild(el("option", {value: ""}, "all labels"));
      (spec.labels || []).forEach(function (l) { labelSelect.appendChild(el("option", {value: l}, l)); });
      controls.appendChild(labelSelect);
    }
    var numeric = [];
    cols.forEach(function (c, i) { if (c.type === "num") numeric.push(i); });
    if (numeric.length) {
      rangeCol = el("select", {"class": "filter-column"});
      numeric.forEach(function (i) { rangeCol.appendChild(el("option", {value: i}, cols[i].title)); });
      if (spec.range_column !== undefined) rangeCol.value = String(spec.range_column);
      lo = el("input", {type: "number", step: "any", placeholder: "min", "class": "num filter-min"});
      hi = el("input", {type: "number", step: "any", placeholder: "max", "class": "num filter-max"});
      controls.appendChild(rangeCol); controls.appendChild(lo); controls.appendChild(hi);
    }
    var prev = el("button", {"class": "prev"}, "\u2039 previous");
    var next = el("button", {"class": "next"}, "next \u203A");
    var info = el("span", {"class": "pager"});
    controls.appendChild(prev); controls.appendChild(info); controls.appendChild(next);
    var wrap = el("div", {"class": "scroll"});
    var table = el("table", {"class": "data"});
    var thead = el("thead"), tbody = el("tbody");
    var tr = el("tr");
    cols.forEach(function (c, i) {
      var th = el("th", {"class": "sortable " + (c.type === "num" ? "num" : "text"),
        "data-key": c.key, title: c.help || ("sort by " + c.title)}, c.title);
      th.addEventListener("click", function () { self.sort(i); });
      tr.appendChild(th);
    });
    thead.appendChild(tr); table.appendChild(thead); table.appendChild(tbody);
    wrap.appendChild(table);
    host.appendChild(controls); host.appendChild(wrap);
    this.filter = function () {
      var q = search ? search.value.toLowerCase() : "";
      var lab = labelSelect ? labelSelect.value : "";
      var rc = rangeCol ? Number(rangeCol.value) : -1;
      var a = lo && lo.value !== "" ? Number(lo.value) : -Infinity;
      var b = hi && hi.value !== "" ? Number(hi.value) : Infinity;
      shown = all.filter(function (r) {
        if (q && String(r[textCol]).toLowerCase().indexOf(q) < 0) return false;
        if (lab && r[labelCol].indexOf(lab) < 0) return false;
        if (rc >= 0 && (a > -Infinity || b < Infinity)) {
          var v = num(r[rc]);
          if (isNaN(v) || v < a || v > b) return false;
        }
        return true;
      });
      if (sortCol >= 0) order();
      page = 0; self.render();
    };
    function order() {
      var isNum = cols[sortCol].type === "num";
      var idx = shown.map(function (r, i) { return i; });
      idx.sort(function (i, j) {
        var a = shown[i][sortCol], b = shown[j][sortCol];
        if (isNum) {  // undefined values (nan) last in both directions
          var na = isNaN(num(a)), nb = isNaN(num(b));
          if (na !== nb) return na ? 1 : -1;
        }
        var c = compare(a, b, isNum);
        return c !== 0 ? sortDir * c : i - j;
      });
      shown = idx.map(function (i) { return shown[i]; });
    }
    this.sort = function (i) {
      if (sortCol === i) sortDir = -sortDir; else { sortCol = i; sortDir = 1; }
      order(); page = 0;
      Array.prototype.forEach.call(thead.querySelectorAll("th"), function (th, k) {
        if (k === sortCol) th.setAttribute("aria-sort", sortDir > 0 ? "ascending" : "descending");
        else th.removeAttribute("aria-sort");
      });
      self.render();
    };
    this.render = function () {
      var n = shown.length, pages = Math.max(1, Math.ceil(n / pageSize));
      page = Math.min(page, pages - 1);
      var start = page * pageSize, stop = Math.min(n, start + pageSize);
      var frag = document.createDocumentFragment();
      for (var k = start; k < stop; k++) {
        var r = shown[k], row = el("tr");
        if (spec.total_rows && spec.total_rows.indexOf(r[0]) >= 0) row.className = "total";
        cols.forEach(function (c, i) {
          var td = el("td", {"class": c.type === "num" ? "num" : "text"});
          var text = fmt(r[i], c.type === "num" ? (c.digits === undefined ? 3 : c.digits) : null);
          if (c.link && spec.anchors && spec.anchors[r[i]] !== undefined) {
            td.appendChild(el("a", {href: "#" + spec.anchors[r[i]]}, text));
          } else {
            td.textContent = text;
          }
          row.appendChild(td);
        });
        frag.appendChild(row);
      }
      tbody.textContent = "";
      tbody.appendChild(frag);
      info.textContent = n ? ("rows " + (start + 1) + "\u2013" + stop + " of " + n +
        (n < all.length ? " (filtered from " + all.length + ")" : "")) : "no rows";
      prev.disabled = page === 0; next.disabled = page >= pages - 1;
      host.dataset.shown = String(n);
    };
    prev.addEventListener("click", function () { page -= 1; self.render(); });
    next.addEventListener("click", function () { page += 1; self.render(); });
    [search, labelSelect, rangeCol, lo, hi].forEach(function (c) {
      if (c) c.addEventListener("input", self.filter);
    });
    if (labelSelect) labelSelect.addEventListener("change", self.filter);
    if (rangeCol) rangeCol.addEventListener("change", self.filter);
    this.render();
  }
  // a large download is embedded gzip-compressed: unpacked into a file when clicked
  window.audevalUnpack = function (link) {
    var bytes = Uint8Array.from(atob(link.dataset.gzip), function (c) { return c.charCodeAt(0); });
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).blob().then(function (blob) {
      return new Blob([blob], {type: "text/csv"});
    });
  };
  Array.prototype.forEach.call(document.querySelectorAll("a[data-gzip]"), function (link) {
    link.addEventListener("click", function (event) {
      if (link.dataset.ready) return;  // the second click is the download itself
      event.preventDefault();
      window.audevalUnpack(link).then(function (blob) {
        link.href = URL.createObjectURL(blob);
        link.dataset.ready = "true";
        link.click();
      });
    });
  });
  window.audevalTables = [];
  Array.prototype.forEach.call(document.querySelectorAll("div.dtable"), function (host) {
    window.audevalTables.push(new Table(host));
  });
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = "true";
})();
"""
