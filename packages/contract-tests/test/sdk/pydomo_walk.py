"""Drives the service's Python SDK (pydomo, unmodified from PyPI) through the platform API.

Called by pydomo.test.ts:

    python pydomo_walk.py --host 127.0.0.1:PORT --client-id ID --client-secret SECRET --fixtures JSON

The same walk for the reference server and the platform mock (which keeps state).

`--fixtures` carries the spec's own examples (a user, its update, a group, a dataset, its CSV), so the
walk sends nothing the spec does not show. Each step calls pydomo's public API; a failing step is
recorded and the walk goes on with the steps that do not depend on it. Every HTTP exchange pydomo makes
is recorded by wrapping requests' Session.send (an observer only: pydomo itself is not touched), so the
test can check each response against the spec and a report can show the exact request and answer.

Prints one line `PYDOMO_WALK <json>` on stdout: {pydomo, steps: [{name, ok, value | error, exchanges}]}.
"""

import argparse
import contextlib
import io
import json
import sys
import traceback
from importlib.metadata import version

import requests

from pydomo import Domo
from pydomo.datasets import Column, DataSetRequest, Schema, UpdateMethod

MAX_BODY = 200_000


class Recorder:
    """Keeps every request pydomo sends and the answer it gets, in order."""

    def __init__(self):
        self.exchanges = []
        original = requests.sessions.Session.send
        recorder = self

        def send(session, prepared, **kwargs):
            response = original(session, prepared, **kwargs)
            recorder.exchanges.append(describe(prepared, response))
            return response

        requests.sessions.Session.send = send


def text_of(body):
    if body is None:
        return None
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    return body if len(body) <= MAX_BODY else body[:MAX_BODY] + "…"


def describe(prepared, response):
    headers = dict(prepared.headers)
    for name in list(headers):
        if name.lower() == "authorization":
            # The scheme as sent; the credential itself stays out of reports.
            headers[name] = headers[name].split(" ", 1)[0] + " [redacted]"
    return {
        "method": prepared.method,
        "url": prepared.url,
        "requestHeaders": headers,
        "requestBody": text_of(prepared.body),
        "status": response.status_code,
        # Reading the body here caches it: pydomo's own .json()/.text see the same bytes.
        "responseHeaders": dict(response.headers),
        "responseBody": text_of(response.content),
    }


def frame_records(frame):
    """A pandas DataFrame as JSON-friendly rows (pydomo's list helpers return DataFrames)."""
    return json.loads(frame.to_json(orient="records", date_format="iso"))


def walk_steps(fixtures):
    """(name, results of earlier steps it needs, call): users, groups, datasets, each family whole."""
    user, update, group, dataset = (
        fixtures["user"],
        fixtures["userUpdate"],
        fixtures["group"],
        fixtures["dataset"],
    )

    def dataset_request():
        request = DataSetRequest()
        request.name = dataset["name"]
        request.description = dataset.get("description", "")
        request.schema = Schema([Column(c["type"], c["name"]) for c in dataset["schema"]["columns"]])
        return request

    def ds_get(d, s):
        # pydomo prints (instead of raising) when it cannot apply the dataset's schema: keep what it says.
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            rows = frame_records(d.ds_get(s["datasets_create"]["id"]))
        return {"rows": rows, "printed": printed.getvalue()}

    return [
        ("users_add", [], lambda d, s: d.users_add(user["name"], user["email"], user["role"])),
        ("users_get", ["users_add"], lambda d, s: d.users_get(s["users_add"]["id"])),
        # PUT answers 200 with no body: pydomo returns None; the read back shows the change.
        ("users_update", ["users_add"], lambda d, s: {
            "returned": d.users_update(s["users_add"]["id"], update),
            "readBack": d.users_get(s["users_add"]["id"])}),
        ("users_list", [], lambda d, s: d.users_list(df_output=False)),
        ("groups_create", [], lambda d, s: d.groups_create(group["name"])),
        ("groups_get", ["groups_create"], lambda d, s: d.groups_get(s["groups_create"]["id"])),
        ("groups_list", [], lambda d, s: frame_records(d.groups_list())),
        ("groups_add_users", ["groups_create", "users_add"], lambda d, s: d.groups_add_users(
            s["groups_create"]["id"], s["users_add"]["id"])),
        ("groups_list_users", ["groups_create"], lambda d, s: d.groups_list_users(s["groups_create"]["id"])),
        ("groups_remove_users", ["groups_create", "users_add"], lambda d, s: {
            "returned": d.groups_remove_users(s["groups_create"]["id"], s["users_add"]["id"]),
            "members": d.groups_list_users(s["groups_create"]["id"])}),
        # groups_delete lists the members, removes each, then deletes: add one back so that path runs.
        ("groups_delete", ["groups_create", "users_add"], lambda d, s: {
            "added": d.groups_add_users(s["groups_create"]["id"], s["users_add"]["id"]),
            "returned": d.groups_delete(s["groups_create"]["id"]),
            "readBack": d.groups_get(s["groups_create"]["id"])}),
        ("datasets_create", [], lambda d, s: d.datasets.create(dataset_request())),
        ("ds_list", [], lambda d, s: d.ds_list(df_output=False)),
        # With a limit above the number of datasets, pydomo asks for the next page with `limit=0`
        # (limit minus offset) and stops only on `[]`.
        ("ds_list_limit", ["datasets_create"], lambda d, s: d.ds_list(df_output=False, limit=10)),
        ("ds_meta", ["datasets_create"], lambda d, s: d.ds_meta(s["datasets_create"]["id"])),
        ("datasets_data_import", ["datasets_create"], lambda d, s: d.datasets.data_import(
            s["datasets_create"]["id"], fixtures["csvImport"])),
        ("datasets_data_export", ["datasets_create"], lambda d, s: d.datasets.data_export(
            s["datasets_create"]["id"], include_csv_header=True)),
        # The same data read into pandas with the dataset's schema (pydomo's own type mapping).
        ("ds_get", ["datasets_create"], ds_get),
        # pydomo's APPEND import (`?updateMethod=APPEND`): the rows come after the existing ones.
        ("datasets_data_append", ["datasets_create"], lambda d, s: {
            "returned": d.datasets.data_import(s["datasets_create"]["id"], fixtures["csvImport"], UpdateMethod.APPEND),
            "export": d.datasets.data_export(s["datasets_create"]["id"], include_csv_header=True)}),
        ("ds_delete", ["datasets_create"], lambda d, s: {
            "returned": d.ds_delete(s["datasets_create"]["id"], prompt_before_delete=False),
            "readBack": d.ds_meta(s["datasets_create"]["id"])}),
        ("users_delete", ["users_add"], lambda d, s: {
            "returned": d.users_delete(s["users_add"]["id"]),
            "readBack": d.users_get(s["users_add"]["id"])}),
    ]


def failure(error):
    return {"error": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()[-3000:]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", required=True, help="host:port, as pydomo's api_host")
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--client-secret", required=True)
    parser.add_argument("--fixtures", required=True)
    args = parser.parse_args()
    fixtures = json.loads(args.fixtures)

    recorder = Recorder()
    steps = []

    def record(name, outcome):
        exchanges, recorder.exchanges = recorder.exchanges, []
        steps.append({"name": name, **outcome, "exchanges": exchanges})

    # The constructor asks for the token; pydomo decodes its `exp` to decide when to renew.
    try:
        domo = Domo(args.client_id, args.client_secret, api_host=args.host, use_https=False,
                    scope=fixtures["scopes"])
        results = {"token": {"expiration": domo.transport.token_expiration}}
        record("token", {"ok": True, "value": results["token"]})
    except Exception as error:  # noqa: BLE001 — every failure is reported, none ends the report
        results = {}
        record("token", {"ok": False, **failure(error)})

    for name, needs, step in walk_steps(fixtures):
        missing = [need for need in ["token", *needs] if need not in results]
        if missing:
            record(name, {"ok": False, "error": f"not run: needs {', '.join(missing)}"})
            continue
        try:
            results[name] = step(domo, results)
            record(name, {"ok": True, "value": results[name]})
        except Exception as error:  # noqa: BLE001
            record(name, {"ok": False, **failure(error)})

    print("PYDOMO_WALK " + json.dumps({"pydomo": version("pydomo"), "steps": steps}, default=str))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
