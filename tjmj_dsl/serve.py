"""`tjmj serve`: the JSON contract over HTTP, on FastAPI and uvicorn.

POST /score, /waits, /explain, /settle take one request (a JSON object) and
answer it as the JSONL batch would; POST /score/batch takes a JSON array or
JSONL and answers every request in order. GET /rules says which rules are in
force, GET /health that the service is up, GET /openapi.json describes it all
with the contract's schemas. A refused request gets 400 (413 when the body is
over the limit) with the same answer a JSONL line would get; no input makes a
500. FastAPI and uvicorn are imported only by this module (the `serve` extra),
which `tjmj serve` alone imports."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

import jsonschema

from fastapi import FastAPI, Request
from starlette.requests import ClientDisconnect
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from .api import names_own_rules
from .engine.contract import CONTRACT
from .engine.runtime import (MAX_LINE, MAX_NESTING, UNWRITABLE_ID, answer_line, answer_one, decode_lines,
                             dumps_answer, loads_request, settle_collector)
from .guard import Limits, uvicorn_options, wrap
from .guard.limits import client_key
from .guard.work import Budget, Busy, Workers
from .service import Service

CONFIG_ENV = "TJMJ_SERVE_CONFIG"
MAX_BODY = Limits.max_body  # bytes of one request body, batches included (the guard's bound: one number)
MAX_BATCH = 10_000  # requests in one batch
DISCONNECT_POLL = 0.2  # seconds: while a batch is answered, how often the service looks whether its client is still there
ENDPOINTS = (("score", "/score"), ("waits", "/waits"), ("explain", "/explain"), ("settle", "/settle"))
JSONL_TYPES = ("application/x-ndjson", "application/jsonl", "application/json-lines", "application/jsonlines",
               "application/x-jsonlines")  # a /score/batch body so labelled is JSONL, whatever its first line


@dataclass(frozen=True)
class Config:
    """What `tjmj serve` was asked for; workers rebuild the app from it."""

    rules: str | None = None
    profile: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    cors: tuple[str, ...] = ()
    max_body: int = MAX_BODY
    max_batch: int = MAX_BATCH
    tables: dict[str, Any] | None = None  # `--tables`: the rooms of tjmj_dsl/tables beside the contract (its TablesConfig)
    guard: dict[str, Any] = field(default_factory=dict)  # the guard's Limits (tjmj_dsl.guard), its fields by name

    def limits(self) -> Limits:
        """The guard's limits: those set, and --max-body and --cors-origin as the guard's own. The
        tables' --table-origin pages pass the guard too (the tables' own check admits them to the
        tables only): the guard, in front of every path, must not refuse what the tables allow."""
        kw = dict(self.guard)
        for k in ("cors_origins", "allowed_hosts", "proxies"):
            if kw.get(k) is not None:
                kw[k] = tuple(kw[k])
        tables = tuple((self.tables or {}).get("origins") or ())
        kw.update(max_body=self.max_body, cors_origins=tuple(dict.fromkeys(tuple(self.cors) + tables)))
        return Limits(**kw)


def _status(answer: Any) -> int:
    err = answer.get("error") if isinstance(answer, dict) else None
    if not err:
        return 200
    return 413 if err.get("code") == "too_large" else 400


def create_app(config: Config) -> Any:
    """The FastAPI application for one configuration (raises RuleError for bad rules)."""
    service = Service(config.rules, config.profile, config.options)
    limits = {"max_body": config.max_body, "max_batch": config.max_batch, "max_request": MAX_LINE}
    answerers = {kind: service.answerer(kind) for kind, _ in ENDPOINTS}
    workers = Workers(config.limits())
    # /score/ is no other path than /score: a 404, not a redirect a client would have to follow
    app = FastAPI(title="tjmj", docs_url="/docs", redoc_url=None, redirect_slashes=False)
    app.state.service = service
    doc = openapi(service, config)
    app.openapi = lambda: doc  # type: ignore[method-assign]

    def reply(answer: Any, status: int | None = None, kind: str = "score") -> Response:
        try:
            text = dumps_answer(answer)
        except ValueError:  # NaN or Infinity in the id
            answer = service.refuse(kind, None, dict(UNWRITABLE_ID))
            text, status = dumps_answer(answer), 400
        status = status or _status(answer)
        # a 413's body may be left unread on the connection, which the server then closes: say so (a
        # keep-alive client's next request on it would be reset)
        return Response(text, status_code=status, media_type="application/json",
                        headers={"Connection": "close"} if status == 413 else None)

    def too_large(kind: str, what: str) -> dict[str, Any]:
        return refusal(service, kind, "too_large", what)

    async def body(request: Request, kind: str) -> tuple[bytes | None, Any]:
        """(the body, None), or (None, the refusal) when it is over the limit."""
        declared = request.headers.get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > config.max_body:
            return None, too_large(kind, f"the body has {declared} bytes; the limit is {config.max_body}")
        chunks = []
        n = 0
        async for chunk in request.stream():
            n += len(chunk)
            if n > config.max_body:
                return None, too_large(kind, f"the body is over the limit of {config.max_body} bytes")
            chunks.append(chunk)
        return b"".join(chunks), None

    def parse(kind: str, raw: bytes, depth: int = MAX_NESTING) -> tuple[Any, Any]:
        """(the JSON value, None), or (None, the refusal)."""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            return None, service.refuse(kind, None, {"code": "not_utf8", "message": f"not UTF-8 at byte {e.start}",
                                                     "field": None, "position": e.start})
        data, err = loads_request(text, depth=depth)
        return (None, service.refuse(kind, None, err)) if err else (data, None)

    def query_refused(request: Request, kind: str) -> Any:
        """The refusal of a query string (the service reads none: a ?profile= would be silently nothing), or None."""
        if not request.url.query:
            return None
        name = request.url.query.split("&")[0].split("=")[0][:60]
        return service.refuse(kind, None, {"code": "unknown_field", "field": f"query.{name}",
                                           "message": "the service reads no query parameters: a request's profile "
                                                      "and options go in its JSON body"})

    def request_too_large(kind: str, size: int) -> Any:
        """The refusal of one request of `size` bytes over MAX_LINE (as a JSONL line would be), or None."""
        if size <= MAX_LINE:
            return None
        return too_large(kind, f"the request has {size} bytes; a request is at most {MAX_LINE} (as a JSONL line is)")

    def text_of(texter: Any, data: Any) -> str | None:
        """The answer's JSON text straight from the scorer (a plain score request), else None."""
        try:
            return texter(data)  # type: ignore[no-any-return]
        except Exception:  # noqa: BLE001  (the mapping's path answers, and says what failed)
            return None

    def endpoint(kind: str) -> Any:
        answer = answerers[kind]
        texter = service.texter(kind)
        refuse = (lambda i, e: service.refuse(kind, i, e))

        async def handle(request: Request) -> Response:
            raw, refused = await body(request, kind)
            if refused is None:
                refused = query_refused(request, kind) or request_too_large(kind, len(raw or b""))
            if refused is not None:
                return reply(refused)
            data, refused = parse(kind, raw or b"")
            if refused is not None:
                return reply(refused)
            if names_own_rules(data) or kind in ("waits", "settle"):
                # off the event loop: the other requests are answered while it compiles (about 0.1 s), or
                # while a hand's waits are worked out (up to some 0.1 s with many huns)
                try:
                    return reply(await work(request, lambda budget: answer_one(data, answer, refuse), kind="one"),
                                 kind=kind)
                except Busy as e:
                    return reply(busy(kind, e), e.status)
            if texter is not None:
                text = text_of(texter, data)
                if text is not None:  # never a refusal
                    return Response(text, status_code=200, media_type="application/json")
            return reply(answer_one(data, answer, refuse), kind=kind)

        return handle

    for kind, path in ENDPOINTS:
        app.add_api_route(path, endpoint(kind), methods=["POST"], include_in_schema=False)

    score = answerers["score"]
    score_texter = service.texter("score")

    def refuse_score(i: Any, e: Any) -> Any:
        return service.refuse("score", i, e)

    def array_item(budget: Budget, x: Any, size: int) -> str:
        """The answer's JSON text for one item of a JSON array batch, `size` the bytes of its text in the body."""
        refused = request_too_large("score", size)
        if refused is not None:
            return dumps_answer(refused)
        over = over_budget(budget, x)
        if over is not None:
            return refusal_text(x, over)
        text = text_of(score_texter, x)
        if text is None:
            try:
                text = dumps_answer(answer_one(x, score, refuse_score))
            except ValueError:
                text = dumps_answer(refuse_score(None, dict(UNWRITABLE_ID)))
        return text

    def over_budget(budget: Budget, x: Any) -> dict[str, Any] | None:
        """The work_budget error of request `x` when the request carrying it has spent its CPU, or
        would name one profile/option set too many (each may be a scorer to compile), else None."""
        why = budget.over()
        if why is None and names_own_rules(x):
            why = budget.admit(rule_set_key(x))
        return None if why is None else {"code": "work_budget", "message": why, "field": None}

    def refusal_text(x: Any, err: dict[str, Any]) -> str:
        try:
            return dumps_answer(refuse_score(x.get("id") if isinstance(x, dict) else None, err))
        except ValueError:
            return dumps_answer(refuse_score(None, dict(UNWRITABLE_ID)))

    def answer_array(budget: Budget, items: list[Any], sizes: list[int]) -> str | None:
        # each answer's JSON text: the array's text is theirs joined as json.dumps joins them
        out = []
        for x, n in zip(items, sizes):
            if budget.gone.is_set():
                return None
            out.append(array_item(budget, x, n))
        return "[" + ", ".join(out) + "]"

    def answer_texts(budget: Budget, texts: list[str]) -> str | None:
        # a JSON array batch, each item read from its own text as a JSONL line is: one that is not
        # JSON this scorer reads is refused on its own, with a position in its text
        out = []
        for t in texts:
            if budget.gone.is_set():
                return None
            size = len(t.encode("utf-8", "surrogatepass"))
            data, err = (None, None) if request_too_large("score", size) else loads_request(t)
            out.append(dumps_answer(refuse_score(None, err)) if err else array_item(budget, data, size))
        return "[" + ", ".join(out) + "]"

    def answer_jsonl(budget: Budget, lines: list[bytes]) -> str | None:
        def answer(x: Any) -> Any:
            over = over_budget(budget, x)
            return score(x) if over is None else refuse_score(x.get("id") if isinstance(x, dict) else None, over)

        def text(x: Any) -> str | None:  # the scorer's own text, unless this request's CPU is spent
            return None if score_texter is None or budget.over() else score_texter(x)

        out = []
        for line in decode_lines(lines):
            if budget.gone.is_set():
                return None
            a = answer_line(line, answer, refuse_score, text)
            if a is not None:
                out.append(a + "\n")
        return "".join(out)

    async def work(request: Request, fn: Any, *args: Any, kind: str = "batch") -> Any:
        """fn(budget, *args) off the event loop, once the guard's Workers admit it (Busy if not), the
        budget's `gone` set once the client has closed the connection (looked at every
        DISCONNECT_POLL seconds): a batch of new option sets, each compiled, is not worked out for
        no one (fn then answers None)."""
        async def watch(budget: Budget) -> None:
            while not budget.gone.is_set():
                if await request.is_disconnected():
                    budget.gone.set()
                    return
                await asyncio.sleep(DISCONNECT_POLL)

        client = client_key(request.client.host) if request.client else ""
        return await workers.run(client, fn, *args, watch=watch, kind=kind)

    def busy(kind: str, e: Busy) -> dict[str, Any]:
        return refusal(service, kind, "busy", e.message)

    def answer_batch(budget: Budget, raw: bytes, content_type: str) -> Response | None:
        """The answer to a batch body (read, parsed and answered in a worker thread: a megabyte of
        JSON is not parsed on the event loop), None when its client left."""
        if is_array(raw, content_type):  # a JSON array in, a JSON array out
            items, refused = parse("score", raw, MAX_NESTING + 1)  # the array holds requests nested as a line may be
            if refused is not None:
                texts = array_texts(raw)  # JSON, but an item is not JSON this scorer reads (a repeated key, too deep)
                if texts is None:
                    return reply(refused)
                if len(texts) > config.max_batch:
                    return reply(too_large("score", f"{len(texts)} requests; a batch holds at most {config.max_batch}"))
                text = answer_texts(budget, texts)
                return None if text is None else Response(text, media_type="application/json")
            if not isinstance(items, list):
                return reply(refusal(service, "score", "wrong_type", "a batch is a JSON array or JSONL"))
            if len(items) > config.max_batch:
                return reply(too_large("score", f"{len(items)} requests; a batch holds at most {config.max_batch}"))
            # each item's size is that of its text in the body, as a JSONL line's is its bytes
            sizes = item_sizes(raw, len(items)) if len(raw) > MAX_LINE else [0] * len(items)
            text = answer_array(budget, items, sizes)
            return None if text is None else Response(text, media_type="application/json")
        lines = raw.split(b"\n")
        if sum(1 for x in lines if x.strip()) > config.max_batch:
            return reply(too_large("score", f"a batch holds at most {config.max_batch} requests"))
        text = answer_jsonl(budget, lines)
        return None if text is None else Response(text, media_type="application/x-ndjson")

    @app.post("/score/batch", include_in_schema=False)
    async def batch(request: Request) -> Response:
        raw, refused = await body(request, "score")
        if refused is None:
            refused = query_refused(request, "score")
        if refused is not None:
            return reply(refused)
        try:
            res = await work(request, answer_batch, raw or b"", request.headers.get("content-type", ""))
        except Busy as e:
            return reply(busy("score", e), e.status)
        return Response(status_code=499) if res is None else res  # 499: the client closed the connection

    @app.api_route("/rules", methods=["GET", "HEAD"], include_in_schema=False)
    async def rules() -> Response:
        return reply(service.rules_document(limits), 200)

    @app.api_route("/health", methods=["GET", "HEAD"], include_in_schema=False)
    async def health() -> Response:
        body: dict[str, Any] = {"status": "ok", "contract": CONTRACT, "rules": service.base.rules_info}
        tables = getattr(app.state, "tables", None)
        if tables is not None:  # --tables: their database's health is the server's too
            body["tables"] = await tables.health()
            body["status"] = body["tables"]["status"]
        return reply(body, 200 if body["status"] == "ok" else 503)

    def http_error(status: int, headers: Any = None, path: str = "") -> Response:
        """A refusal in the shape of the answers of `path` (/waits: a waits answer's, /settle: a settle
        answer's, any other: a score answer's), as every other refusal of the service is (the Allow
        header of a 405 kept)."""
        code = {404: "not_found", 405: "method_not_allowed"}.get(status, "bad_request")
        message = {404: "no such path; GET /openapi.json lists them",
                   405: "this path takes another method (POST for answers, GET for /rules and /health)"}.get(
                       status, "bad request")
        kind = {"/waits": "waits", "/settle": "settle"}.get(path, "score")
        res = reply(refusal(service, kind, code, message), status)
        for k, v in (headers or {}).items():
            if k.lower() == "allow":
                res.headers["Allow"] = v
        return res

    @app.exception_handler(StarletteHTTPException)
    async def on_http_error(request: Request, exc: StarletteHTTPException) -> Response:
        return http_error(exc.status_code, exc.headers, request.url.path)

    @app.exception_handler(ClientDisconnect)
    async def on_client_gone(request: Request, exc: ClientDisconnect) -> Response:
        # the client closed the connection before its body ended: no one reads an answer, and
        # nothing went wrong here (uncaught, it was logged as an error with its traceback)
        return Response(status_code=499)

    @app.exception_handler(Exception)
    async def on_error(request: Request, exc: Exception) -> Response:  # a bug, or a database down: the contract's shape
        # the exception's text stays in the server's log: it may name what a client must not learn (a review's
        # finding: a database driver's error gave its host and port to whoever asked during an outage)
        print(f"tjmj serve: {request.method} {request.url.path[:80]}: {type(exc).__name__}: {exc}", file=sys.stderr,
              flush=True)
        return reply({"contract": CONTRACT, "rules": service.base.rules_info, "reason": "invalid_request",
                      "error": {"code": "internal_error", "message": f"the server failed on this request "
                                f"({type(exc).__name__}); its log says why", "field": None}}, 500)

    # always: with no --cors-origin no origin is allowed, and a browser's preflight is refused as such
    # (cors_refused), not answered 405 as an OPTIONS request the service does not serve
    refuse_preflight = (lambda why: refusal(service, "score", "cors_refused", why))
    app.add_middleware(_json_cors(refuse_preflight), allow_origins=list(config.cors),
                       allow_methods=["GET", "POST"], allow_headers=["*"], max_age=600)
    if config.tables is not None:  # the tables (/play, the room API, the sockets): their own module
        from .tables.app import mount_config
        mount_config(app, config.tables)
    return app


def _json_cors(refuse: Any) -> Any:
    """Starlette's CORS middleware, a refused preflight (its text/plain 400) answered with the
    service's JSON refusal instead, its headers kept: every refusal of the service has one shape."""
    from fastapi.middleware.cors import CORSMiddleware

    class JsonCors(CORSMiddleware):
        def preflight_response(self, request_headers: Any) -> Any:
            res = super().preflight_response(request_headers)
            if res.status_code < 400:
                return res
            out = Response(dumps_answer(refuse(bytes(res.body).decode("utf-8", "replace"))),
                           status_code=res.status_code, media_type="application/json")
            for k, v in res.headers.items():
                if k.lower() not in ("content-type", "content-length"):
                    out.headers[k] = v
            return out

    return JsonCors


def refusal(service: Service, kind: str, code: str, message: str) -> dict[str, Any]:
    """`kind`'s answer refusing a request as a whole (no id, no field at fault): every refusal of
    the service's own (too large, busy, an HTTP error, the guard's) is built here."""
    return service.refuse(kind, None, {"code": code, "message": message, "field": None})


def rule_set_key(x: dict[str, Any]) -> str:
    """One request's profile and options as one text: the distinct sets a request names are counted
    by it (two spellings of one set count twice: the count can only err on the safe side)."""
    try:
        return json.dumps([x.get("profile"), x.get("options")], sort_keys=True, default=repr)
    except (TypeError, ValueError, RecursionError):
        return repr([x.get("profile"), x.get("options")])


def is_array(raw: bytes, content_type: str) -> bool:
    """Whether a /score/batch body is a JSON array (else JSONL): JSONL when its
    type says so; else an array when it starts with `[`, unless its first line
    is a whole JSON value followed by more lines (JSONL whose first request is
    an array: each line is answered, as `tjmj score --jsonl` would)."""
    if content_type.split(";")[0].strip().lower() in JSONL_TYPES:
        return False
    text = raw.lstrip()
    if text[:1] != b"[":
        return False
    first, _, rest = text.partition(b"\n")
    if not rest.strip():
        return True
    try:
        return loads_request(first.decode("utf-8"))[1] is not None
    except UnicodeDecodeError:
        return True


def array_texts(raw: bytes) -> list[str] | None:
    """The texts of a JSON array body's items as the body holds them, or None when the body
    is not a JSON array (json.loads's reading: a repeated key or deep nesting in an item is
    for that item's answer to say). An item json.loads itself cannot read though it is JSON
    (nested past Python's recursion limit, an integer past its digits limit) is found by the
    array's brackets alone: its answer says what is wrong with it, as a line's would (a
    fuzzing campaign's finding: such an item refused the whole body)."""
    try:
        text = raw.decode("utf-8")
    except ValueError:
        return None
    try:
        items = json.loads(text)
    except json.JSONDecodeError:
        return None
    except (ValueError, RecursionError):
        return _bracketed_items(text)
    return _item_texts(text, len(items)) if isinstance(items, list) else None


# what delimits an array's items: a whole string (escapes within it), a bracket or a comma; a
# string's quote that no quote closes matches alone
_DELIMITERS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},"]')
_SPACE = " \t\n\r"


def _bracketed_items(text: str) -> list[str] | None:
    """The texts of the items of the JSON array `text`, found by its brackets, commas and
    strings only (no recursion: any depth), None when it is not one array of items
    (the items' own text is for their answers to read)."""
    start = len(text) - len(text.lstrip(_SPACE))
    if not text.startswith("[", start):
        return None
    out: list[str] = []
    depth, begin = 0, start + 1
    for m in _DELIMITERS.finditer(text, start + 1):
        ch = m.group()
        if ch == '"':  # a string not closed
            return None
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            if depth:
                depth -= 1
                continue
            item = text[begin:m.start()].strip(_SPACE)
            if ch != "]" or (not item and out) or text[m.end():].strip(_SPACE):
                return None
            return out + [item] if item else out
        elif ch == "," and not depth:
            item = text[begin:m.start()].strip(_SPACE)
            if not item:
                return None
            out.append(item)
            begin = m.end()
    return None


def item_sizes(raw: bytes, count: int) -> list[int]:
    """The bytes of each item's text in a JSON array body that parsed as `count` items."""
    return [len(t.encode("utf-8", "surrogatepass")) for t in _item_texts(raw.decode("utf-8"), count)]


def _item_texts(text: str, count: int) -> list[str]:
    """The texts of the `count` items of the JSON array `text` (json's own scanner finds
    where each ends; the text between is commas and spaces)."""
    decoder = json.JSONDecoder()
    i = text.index("[") + 1
    out = []
    for _ in range(count):
        while text[i] in " \t\n\r,":
            i += 1
        _, end = decoder.raw_decode(text, i)
        out.append(text[i:end])
        i = end
    return out


def app_from_env() -> Any:
    """The app factory uvicorn calls in each worker: the configuration comes in CONFIG_ENV. The app
    is behind the guard (tjmj_dsl.guard), whose refusals have the shape of a score refusal."""
    data = json.loads(os.environ.get(CONFIG_ENV) or "{}")
    data["cors"] = tuple(data.get("cors") or ())
    config = Config(**data)
    app = create_app(config)
    service = app.state.service

    def guard_refusal(code: str, message: str) -> bytes:
        return dumps_answer(refusal(service, "score", code, message)).encode()

    guarded = wrap(app, config.limits(), guard_refusal)
    settle_collector()  # what start-up made (FastAPI, the app, the rules) out of the collector's way
    return guarded


def run(config: Config, host: str = "127.0.0.1", port: int = 8000, workers: int = 1,
        log_level: str = "warning") -> None:
    """Serve until stopped (Ctrl-C or SIGTERM)."""
    import uvicorn
    os.environ[CONFIG_ENV] = json.dumps(asdict(config))
    print(f"tjmj serve: http://{host}:{port} ({workers} worker{'s' if workers != 1 else ''}); "
          f"GET /rules, /health, /openapi.json; POST /score, /score/batch, /waits, /explain, /settle"
          + ("; the tables: /play" if config.tables is not None else ""), file=sys.stderr, flush=True)
    uvicorn.run("tjmj_dsl.serve:app_from_env", factory=True, host=host, port=port, workers=workers,
                log_level=log_level, access_log=False, timeout_graceful_shutdown=5,
                **uvicorn_options(config.limits()))


def openapi(service: Service, config: Config) -> dict[str, Any]:
    """The OpenAPI 3.1 document: the paths, and the contract's schemas for the
    rules in force (OpenAPI 3.1 schemas are JSON Schema 2020-12)."""
    from . import __version__
    from .compiler import read_rules
    from .passes.lower import source_sha256
    from .schemas import NOT_HTTP, example_requests, examples_rules, schemas
    rs = service.base.ruleset
    comps: dict[str, Any] = {}
    names = {}
    docs = schemas(rs)
    kept = dict(examples_rules(), sha256=source_sha256(read_rules(None)))  # the built-in rules' own text
    if any(kept[k] != service.base.rules_info[k] for k in ("name", "profile", "options", "sha256")):
        # other rules (or another profile, other options): their own answers to the example requests, and
        # only the request examples their schemas take (a profile they lack is no example for them)
        for name, kind in (("score-result", "score"), ("waits-result", "waits"), ("explain-result", "explain"),
                           ("settle-result", "settle")):
            docs[name]["examples"] = [service.answerer(kind)(r) for r in example_requests()[name]]
        for name in ("score-request", "waits-request", "settle-outcome"):
            valid = jsonschema.Draft202012Validator(docs[name]).is_valid
            docs[name]["examples"] = [x for x in docs[name]["examples"] if valid(x)]
    for name, s in docs.items():
        if name in NOT_HTTP:  # no endpoint takes or gives one
            continue
        top = "".join(w.capitalize() for w in name.split("-"))
        names[name] = top
        s = dict(s)
        for k, v in s.pop("$defs", {}).items():
            comps.setdefault(k, v)
        for k in ("$schema", "$id"):
            s.pop(k, None)
        comps[top] = s
    comps = _rerooted(comps)

    def ref(name: str) -> dict[str, str]:
        return {"$ref": f"#/components/schemas/{names[name]}"}

    def json_body(schema: dict[str, Any]) -> dict[str, Any]:
        return {"content": {"application/json": {"schema": schema}}}

    refused = {"description": "the request is refused: the answer carries `error` (same as a JSONL line)"}
    paths: dict[str, Any] = {}
    for kind, request_name, result_name in (("score", "score-request", "score-result"),
                                            ("waits", "waits-request", "waits-result"),
                                            ("explain", "score-request", "explain-result"),
                                            ("settle", "settle-outcome", "settle-result")):
        paths[f"/{kind}"] = {"post": {
            "operationId": kind, "summary": f"{kind} one {'outcome' if kind == 'settle' else 'request'}",
            "requestBody": dict(json_body(ref(request_name)), required=True),
            "responses": {"200": dict(json_body(ref(result_name)), description="the answer"),
                          "400": dict(json_body(ref(result_name)), **refused),
                          "413": dict(json_body(ref(result_name)),
                                      description=f"the body is over {min(config.max_body, MAX_LINE)} bytes")}}}
    batch_items = {"type": "array", "items": ref("score-request"), "maxItems": config.max_batch}
    paths["/score/batch"] = {"post": {
        "operationId": "score_batch", "summary": "score many requests, answered in order",
        "requestBody": {"required": True, "content": {
            "application/json": {"schema": batch_items},
            "application/x-ndjson": {"schema": {"type": "string", "description": "one request per line"}}}},
        "responses": {
            "200": {"description": "one answer per request, in order (each refused on its own)", "content": {
                "application/json": {"schema": {"type": "array", "items": ref("score-result")}},
                "application/x-ndjson": {"schema": {"type": "string", "description": "one answer per line"}}}},
            "400": dict(json_body(ref("score-result")), description="the body is not a JSON array or JSONL"),
            "413": dict(json_body(ref("score-result")),
                        description=f"over {config.max_body} bytes or {config.max_batch} requests")}}}
    paths["/rules"] = {"get": {"operationId": "rules", "summary": "the rules in force: profiles, options, "
                               "request flags, patterns, limits",
                               "responses": {"200": dict(json_body({"type": "object"}), description="the rules")}}}
    paths["/health"] = {"get": {"operationId": "health", "summary": "the service is up (with --tables: and the "
                                "tables' database answers)",
                                "responses": {"200": dict(json_body({"type": "object"}), description="ok"),
                                              "503": dict(json_body({"type": "object"}), description="the tables' "
                                                          "database does not answer (status unavailable)")}}}
    return {
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {"title": f"tjmj: {rs.title or rs.name}", "version": __version__,
                 "description": f"Scores hands, lists waits and settles hands under the rules {rs.name} "
                                f"(profile {rs.profile}); JSON contract {CONTRACT}. A request may name its own "
                                f"profile and options. A request up to {MAX_LINE} bytes (as a JSONL line), a "
                                f"batch's body up to {config.max_body} bytes and {config.max_batch} requests."},
        "paths": paths,
        "components": {"schemas": comps},
    }


def _rerooted(x: Any) -> Any:
    """#/$defs/NAME → #/components/schemas/NAME, everywhere."""
    if isinstance(x, dict):
        return {k: ("#/components/schemas/" + v[8:] if k == "$ref" and isinstance(v, str) and v.startswith("#/$defs/")
                    else _rerooted(v)) for k, v in x.items()}
    if isinstance(x, list):
        return [_rerooted(v) for v in x]
    return x
