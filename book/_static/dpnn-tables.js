// An output table that fits the text column is read with the page: its box does not
// scroll and its header row stays under the page's top bar while the rows go by. A wider
// table keeps its own scrolling box (dpnn.css), whose header row stays at its top.
function dpnnMarkFittingTables() {
  for (const box of document.querySelectorAll("div.cell_output .output.text_html")) {
    const table = box.querySelector("table");
    if (!table) continue;
    box.classList.remove("dpnn-fits");
    if (table.getBoundingClientRect().width <= box.clientWidth + 1) {
      box.classList.add("dpnn-fits");
    }
  }
  // a table of the text (a docs page) that is wider than the column: its own box
  for (const box of document.querySelectorAll(".bd-article .pst-scrollable-table-container")) {
    const table = box.querySelector("table");
    if (!table || box.closest("div.cell_output")) continue;
    box.classList.remove("dpnn-wide");
    if (table.getBoundingClientRect().width > box.clientWidth + 1) {
      box.classList.add("dpnn-wide");
    }
  }
}
document.addEventListener("DOMContentLoaded", dpnnMarkFittingTables);
window.addEventListener("resize", dpnnMarkFittingTables);
