/*
 * citecheck embeddable widget — one dependency-free script.
 *
 *   <citecheck-report src="https://example.org/reports/10.1000_x.json">
 *     <a href="https://example.org/reports/10.1000_x.html">Citation report</a>  (fallback)
 *   </citecheck-report>
 *
 *   <div class="citecheck-badge" data-src="https://example.org/reports/10.1000_x.json">
 *     <a href="…">Citation report</a>                                            (fallback)
 *   </div>
 *
 * The fallback children stay until the report has loaded and been checked; on any error
 * (network, HTTP status, JSON, a major schema_version other than 1) they stay and the element
 * gets data-citecheck-state="error". Report text comes from third parties (titles carry HTML,
 * DOIs can contain "<"), so it is written only with textContent / createTextNode, never as
 * markup, and only http(s) URLs become links.
 */
(function () {
  "use strict";

  var SUPPORTED_MAJOR = "1";
  var STYLE_ID = "citecheck-widget-style";
  var VERDICTS = ["supported", "partially_supported", "not_supported", "contradicted",
                  "not_checkable"];
  var FOUND = ["linked", "found", "found_with_differences"];
  var CSS = [
    ".cc-report{font:14px/1.5 system-ui,sans-serif;color:#1b1f24;border:1px solid #d0d7de;",
    "border-radius:6px;padding:12px 14px;max-width:60rem}",
    ".cc-report h3{font-size:15px;margin:14px 0 4px}",
    ".cc-title{font-size:17px;font-weight:600;margin:4px 0}",
    ".cc-headline{font-weight:600;border-left:4px solid #0969da;padding-left:8px}",
    ".cc-meta{color:#57606a;font-size:12px;overflow-wrap:anywhere}",
    ".cc-pill{display:inline-block;font-size:11px;font-weight:600;border:1px solid currentColor;",
    "border-radius:10px;padding:0 6px;margin-right:4px}",
    ".cc-ok{color:#1a7f37}.cc-warn{color:#9a6700}.cc-bad{color:#cf222e}.cc-muted{color:#57606a}",
    ".cc-item{border-top:1px solid #d0d7de;padding:6px 0}",
    ".cc-quote{margin:4px 0;padding-left:8px;border-left:3px solid #d0d7de}",
    ".cc-badge-button{font:13px/1.4 system-ui,sans-serif;cursor:pointer;background:#f6f8fa;",
    "border:1px solid #d0d7de;border-radius:6px;padding:4px 10px;color:#1b1f24}",
    ".cc-badge-panel{margin-top:6px}"
  ].join("");

  function ensureStyle() {
    if (document.getElementById(STYLE_ID)) return;
    var style = document.createElement("style");
    style.id = STYLE_ID;
    style.textContent = CSS;
    (document.head || document.documentElement).appendChild(style);
  }

  /* An element with a class and children; strings become text nodes, never markup. */
  function h(tag, className, children) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    (children || []).forEach(function (child) {
      if (child === null || child === undefined || child === "") return;
      node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    });
    return node;
  }

  function text(value) {
    return value === null || value === undefined ? "" : String(value);
  }

  function httpUrl(value) {
    if (typeof value !== "string" || !/^https?:\/\//i.test(value)) return null;
    try {
      var url = new URL(value);
      return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
    } catch (error) {
      return null;
    }
  }

  function link(url, label) {
    var safe = httpUrl(url);
    if (!safe) return document.createTextNode(text(label || url));
    var a = h("a", null, [label || url]);
    a.href = safe;
    a.rel = "noopener noreferrer nofollow";
    return a;
  }

  function doiLink(doi) {
    if (!doi) return null;
    var path = String(doi).split("/").map(encodeURIComponent).join("/");
    return link("https://doi.org/" + path, "doi:" + doi);
  }

  function pill(label, tone) {
    return h("span", "cc-pill cc-" + tone, [label]);
  }

  function joinNodes(parts, separator) {
    var out = [];
    parts.filter(function (p) { return p; }).forEach(function (part, i) {
      if (i) out.push(separator);
      out.push(part);
    });
    return out;
  }

  function list(value) {
    return Array.isArray(value) ? value : [];
  }

  function num(value) {
    var n = Number(value);
    return isFinite(n) ? n : 0;
  }

  function allClaims(report) {
    var claims = report.claims || {};
    return list(claims.outgoing).concat(list(claims.incoming));
  }

  function verdictCounts(report) {
    var counts = {};
    allClaims(report).forEach(function (c) {
      counts[c.verdict] = (counts[c.verdict] || 0) + 1;
    });
    return counts;
  }

  function isRetracted(report) {
    var registry = report.registry || {};
    return registry.retracted === true || list(registry.notices).some(function (n) {
      return n && n.type === "retraction";
    });
  }

  function retractionWarning(report) {
    if (isRetracted(report)) return "\u26a0 This work is retracted";
    var cited = num((((report.references || {}).counts) || {}).retracted);
    return cited ? "\u26a0 Cites " + cited + " retracted work" + (cited > 1 ? "s" : "") : null;
  }

  function referencesLine(report) {
    var counts = (report.references || {}).counts || {};
    var found = FOUND.reduce(function (sum, key) { return sum + num(counts[key]); }, 0);
    if (num(counts.printed) > 0) return "References found " + found + "/" + num(counts.printed);
    return "References in registry: " + num(counts.registry);
  }

  function verdictLine(report) {
    var counts = verdictCounts(report);
    var parts = VERDICTS.filter(function (v) { return counts[v]; }).map(function (v) {
      return counts[v] + " " + v.replace(/_/g, " ");
    });
    return parts.length ? "Claims: " + parts.join(", ") : "No claims checked";
  }

  function workLine(work) {
    var authors = list(work.authors).slice(0, 6).map(function (a) {
      return typeof a === "string" ? a : text(a && a.name);
    }).join(", ");
    if (list(work.authors).length > 6) authors += ", et al.";
    var head = authors + (work.year ? " (" + text(work.year) + ")" : "");
    var cited = work.cited_by_count === null || work.cited_by_count === undefined
      ? "" : "Cited by " + num(work.cited_by_count);
    return h("div", "cc-meta", joinNodes([head, text(work.venue), doiLink(work.doi), cited], " · "));
  }

  function renderClaim(claim) {
    var tone = {supported: "ok", partially_supported: "warn", not_supported: "bad",
                contradicted: "bad"}[claim.verdict] || "muted";
    var head = [pill(text(claim.verdict).replace(/_/g, " "), tone)];
    if (claim.dimension) head.push(pill("differs in " + text(claim.dimension), "warn"));
    if (claim.reason) head.push(h("span", "cc-meta", [text(claim.reason)]));
    var node = h("div", "cc-item", [h("div", null, head),
      h("div", "cc-quote", ["\u201c" + text(claim.quote) + "\u201d"])]);
    var where = joinNodes([claim.page ? "page " + text(claim.page) : "",
      claim.citing_doi ? h("span", null, ["from ", doiLink(claim.citing_doi)]) : null,
      doiLink(claim.cited_doi)], " · ");
    if (where.length) node.appendChild(h("div", "cc-meta", where));
    if (claim.rationale) node.appendChild(h("div", null, [text(claim.rationale)]));
    list(claim.evidence).forEach(function (ev) {
      node.appendChild(h("div", "cc-quote cc-ok", ["\u201c" + text(ev && ev.quote) + "\u201d"]));
      node.appendChild(h("div", "cc-meta", ["page " + (text(ev && ev.page) || "?") +
        " · artifact sha256 " + (text(ev && ev.artifact_sha256) || "none")]));
    });
    if (claim.model) {
      node.appendChild(h("div", "cc-meta", ["Judged by " + text(claim.model) + " with prompt " +
        text(claim.prompt)]));
    }
    return node;
  }

  function flagPills(item) {
    var pills = [];
    if (item.retracted === true) pills.push(pill("Retracted", "bad"));
    if (item.self_citation === true) pills.push(pill("Self-citation", "muted"));
    return pills;
  }

  function renderReference(item) {
    var pills = flagPills(item);
    pills.push(pill(text(item.status).replace(/_/g, " "),
      item.status === "not_found" ? "bad" : item.status === "found_with_differences" ? "warn" : "muted"));
    return h("div", "cc-item", [h("div", null, pills),
      h("div", null, [text(item.title || item.printed || item.id)]), workLine(item)]);
  }

  function section(title, nodes, empty) {
    return h("div", null, [h("h3", null, [title])].concat(
      nodes.length ? nodes : [h("div", "cc-meta", [empty || "None."])]));
  }

  function renderReport(report) {
    var work = report.work || {};
    var ids = work.ids || {};
    var refs = list((report.references || {}).items);
    var stats = list((report.statistics || {}).items);
    var citing = list((report.cited_by || {}).items).slice().sort(function (a, b) {
      return num(b && b.cited_by_count) - num(a && a.cited_by_count);
    });
    var root = h("div", "cc-report", []);
    var summary = list(report.summary);
    if (summary.length) root.appendChild(h("p", "cc-headline", [text(summary[0])]));
    root.appendChild(h("div", "cc-title", [text(work.title || ids.doi || "Untitled work")]));
    root.appendChild(workLine({authors: work.authors, venue: work.venue,
      year: work.published, doi: ids.doi || (report.input || {}).doi}));
    var signals = [pill("Registry: " + text((report.registry || {}).status), "muted"),
      pill(referencesLine(report), "muted"), pill(verdictLine(report), "muted")];
    if (retractionWarning(report)) signals.unshift(pill(retractionWarning(report), "bad"));
    root.appendChild(h("div", null, signals));
    root.appendChild(section("Claims", allClaims(report).map(renderClaim)));
    root.appendChild(section("Statistics", stats.map(function (s) {
      var tone = s.consistent === true ? "ok" : s.consistent === false ? "bad" : "muted";
      var label = s.consistent === true ? "consistent" : s.consistent === false ? "inconsistent" : "not checked";
      return h("div", "cc-item", [pill(label, tone), text(s.text),
        h("div", "cc-meta", ["reported " + text(s.reported) + " · recomputed " + text(s.recomputed)])]);
    })));
    root.appendChild(section("Cites", refs.filter(function (r) {
      return FOUND.indexOf(r.status) >= 0 || r.status === "registry_only";
    }).map(renderReference)));
    root.appendChild(section("Printed but not linked", refs.filter(function (r) {
      return r.status === "not_found" || r.status === "unchecked";
    }).map(renderReference)));
    root.appendChild(section("Cited by", citing.map(function (w) {
      return h("div", "cc-item", [h("div", null, flagPills(w)), h("div", null, [text(w.title)]),
        workLine(w)]);
    })));
    root.appendChild(h("p", "cc-meta", ["Registry, cites and statistics are computed; claim " +
      "verdicts are judged by a model and can be wrong. Generated by citecheck " +
      text((report.generator || {}).version) + " at " + text(report.generated_at) + "."]));
    return root;
  }

  function checkReport(report) {
    if (!report || typeof report !== "object" || Array.isArray(report)) {
      throw new Error("citecheck: the report is not a JSON object");
    }
    var major = String(report.schema_version || "").split(".")[0];
    if (major !== SUPPORTED_MAJOR) {
      throw new Error("citecheck: unsupported schema_version " + text(report.schema_version));
    }
    return report;
  }

  function loadReport(src) {
    var url = new URL(src, document.baseURI).href;
    return fetch(url, {credentials: "omit", headers: {Accept: "application/json"}})
      .then(function (response) {
        if (!response.ok) throw new Error("citecheck: HTTP " + response.status + " for " + url);
        return response.json();
      })
      .then(checkReport);
  }

  function failed(element, error) {
    element.setAttribute("data-citecheck-state", "error");
    if (window.console) console.warn(error && error.message ? error.message : error);
  }

  function upgradeBadge(element) {
    if (element.getAttribute("data-citecheck-state")) return;
    var src = element.getAttribute("data-src");
    element.setAttribute("data-citecheck-state", "loading");
    if (!src) return failed(element, new Error("citecheck: badge without data-src"));
    loadReport(src).then(function (report) {
      ensureStyle();
      var panel = null;
      var label = [referencesLine(report), verdictLine(report)];
      if (retractionWarning(report)) label.unshift(retractionWarning(report));
      var button = h("button", "cc-badge-button", [label.join(" · ")]);
      button.type = "button";
      button.setAttribute("aria-expanded", "false");
      button.addEventListener("click", function () {
        if (!panel) {
          panel = h("div", "cc-badge-panel", [renderReport(report)]);
          element.appendChild(panel);
        } else {
          panel.hidden = !panel.hidden;
        }
        button.setAttribute("aria-expanded", panel.hidden ? "false" : "true");
      });
      element.replaceChildren(button);
      element.setAttribute("data-citecheck-state", "ready");
    }).catch(function (error) { failed(element, error); });
  }

  function upgradeBadges(root) {
    Array.prototype.forEach.call((root || document).querySelectorAll(".citecheck-badge[data-src]"),
      upgradeBadge);
  }

  if (window.customElements && !window.customElements.get("citecheck-report")) {
    window.customElements.define("citecheck-report", class extends HTMLElement {
      connectedCallback() {
        if (this.getAttribute("data-citecheck-state")) return;
        var element = this;
        var src = element.getAttribute("src");
        element.setAttribute("data-citecheck-state", "loading");
        if (!src) return failed(element, new Error("citecheck: <citecheck-report> without src"));
        loadReport(src).then(function (report) {
          ensureStyle();
          element.replaceChildren(renderReport(report));
          element.setAttribute("data-citecheck-state", "ready");
        }).catch(function (error) { failed(element, error); });
      }
    });
  }

  window.citecheckWidget = {upgrade: upgradeBadges, render: function (report) {
    ensureStyle();
    return renderReport(checkReport(report));
  }};
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { upgradeBadges(); });
  } else {
    upgradeBadges();
  }
})();
