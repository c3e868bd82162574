// Opened from disk (file://), a browser refuses the requests Sphinx's search makes for its
// snippets and logs an error per result. There the search lists the matching pages without
// snippets; served over http (make book-serve) it shows them.
if (window.location.protocol === "file:" && typeof DOCUMENTATION_OPTIONS !== "undefined") {
  DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
}
