// The book's search: Sphinx inlines this file (html_search_scorer in conf.py) into
// language_data.js, which the search page loads after searchtools.js.
//
// Ranking: a section whose heading holds the whole query comes first. Sphinx gives such
// a heading about 11 points and any page with one query word in any of its headings 15,
// so "exponential mechanism" listed the section "4. The exponential mechanism" fifth.
//
// Snippets: the text is the chapter's article only (not the theme's header buttons,
// the page's table of contents or the footer), and each formula is shown as its TeX
// without the \( \) delimiters, Greek letters and a few symbols as characters.
"use strict";

var Scorer = {
  score: (result) => {
    const [, , , , score, , kind] = result;
    return kind === "title" ? score + 100 : score;
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};

const DPNN_TEX = {
  alpha: "α", beta: "β", gamma: "γ", Gamma: "Γ", delta: "δ", Delta: "Δ",
  epsilon: "ε", varepsilon: "ε", zeta: "ζ", eta: "η", theta: "θ", Theta: "Θ",
  kappa: "κ", lambda: "λ", Lambda: "Λ", mu: "μ", nu: "ν", xi: "ξ", pi: "π",
  rho: "ρ", sigma: "σ", Sigma: "Σ", tau: "τ", phi: "φ", varphi: "φ", Phi: "Φ",
  chi: "χ", psi: "ψ", omega: "ω", Omega: "Ω", le: "≤", leq: "≤", ge: "≥",
  geq: "≥", ne: "≠", neq: "≠", approx: "≈", sim: "∼", times: "×", cdot: "·",
  cdots: "⋯", ldots: "…", dots: "…", infty: "∞", in: "∈", notin: "∉",
  subset: "⊂", subseteq: "⊆", cup: "∪", cap: "∩", sum: "Σ", prod: "∏",
  to: "→", rightarrow: "→", leftarrow: "←", mapsto: "↦", pm: "±", sqrt: "√",
  lceil: "⌈", rceil: "⌉", lfloor: "⌊", rfloor: "⌋", ell: "ℓ", partial: "∂",
  mid: "|", vert: "|", lVert: "‖", rVert: "‖", Vert: "‖", langle: "⟨",
  rangle: "⟩", emptyset: "∅", forall: "∀", exists: "∃", neg: "¬",
};

// A formula's TeX as a reader can scan it in a line of text.
const dpnnReadableTex = (tex) =>
  tex
    .replace(/^\s*(\\\(|\\\[|\$\$?)|(\\\)|\\\]|\$\$?)\s*$/g, "")
    .replace(/\\(?:left|right|big|Big|bigg|Bigg)(?![A-Za-z])/g, "")
    .replace(/\\(?:math(?:rm|bf|it|cal|bb)|operatorname|text(?:rm)?)\b/g, "")
    .replace(/\\([A-Za-z]+)/g, (_, name) => DPNN_TEX[name] ?? name)
    .replace(/\\[,;:!> ]/g, " ")
    .replace(/\\([{}%#&_|])/g, "$1")
    .replace(/[{}]/g, "")
    .replace(/\\/g, "")
    .replace(/\s+/g, " ")
    .trim();

Search.htmlToText = (htmlString, anchor) => {
  const page = new DOMParser().parseFromString(htmlString, "text/html");
  const main = page.querySelector('[role="main"]');
  const article = main?.querySelector("article") ?? main;
  if (!article) return "";
  article
    .querySelectorAll(".headerlink, script, style, button")
    .forEach((element) => element.remove());
  article.querySelectorAll(".math").forEach((element) => {
    element.textContent = dpnnReadableTex(element.textContent);
  });
  const section = anchor
    ? article.querySelector(`#${CSS.escape(anchor.replace(/^#/, ""))}`)
    : null;
  return (section ?? article).textContent.replace(/\s+/g, " ").trim();
};
