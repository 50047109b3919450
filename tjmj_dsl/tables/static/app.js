// The page's entry: /play is the lobby, /play/room/<room> the table (seated by the
// token in the fragment, #seat=…, or a spectator's, #watch).
import { lobby } from "./lobby.js";
import { table } from "./table.js";

const m = location.pathname.match(/\/room\/([A-Za-z0-9_-]{1,64})\/?$/);
const app = document.getElementById("app");
if (m) table(app, m[1]);
else lobby(app);
