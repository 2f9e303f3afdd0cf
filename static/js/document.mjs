// The document page: the whole PDF in the viewer, from page 1 (a static file,
// not an inline script, so the Content-Security-Policy needs no nonce for it).
import { CiteViewer } from "./citeguard-viewer.mjs";

const element = document.getElementById("pdf-viewer");
const viewer = new CiteViewer(element, { pdfjsBase: element.dataset.pdfjsBase });
viewer.open(element.dataset.url);  // the viewer shows its own message on failure
