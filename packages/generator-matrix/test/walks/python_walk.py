"""The pydomo walk, made with the client openapi-generator's `python` generator makes from the platform bundle.

Run by test/matrix.test.ts with the generated package (`platform_client`) on sys.path; prints one line,
`GENERATED_CLIENT_WALK <json>`: each step's name, whether it succeeded, and what the client gave back, as
the client's own models see it. The step names and values are the same as the Go walk's (go/main.go), so
one set of assertions judges both.
"""

import argparse
import json
import traceback

import platform_client
from platform_client.models.dataset_create import DatasetCreate
from platform_client.models.group_create import GroupCreate
from platform_client.models.user_create import UserCreate
from platform_client.models.user_update import UserUpdate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--client-secret", required=True)
    parser.add_argument("--fixtures", required=True, help="JSON: scopes, user, userUpdate, group, dataset, csv")
    args = parser.parse_args()
    fixtures = json.loads(args.fixtures)

    steps = []

    def step(name, action):
        """Runs one step; a failed step is reported, and the steps that need its value are not run."""
        try:
            value = action()
            steps.append({"name": name, "ok": True, "value": value})
            return value
        except Exception as error:  # noqa: BLE001 — every failure is the report's to show
            steps.append({"name": name, "ok": False, "error": repr(error), "traceback": traceback.format_exc()})
            raise

    def fields(model):
        """A generated model's fields by their JSON names (its to_dict() leaves out readOnly ones, the id too)."""
        return model.model_dump(mode="json", by_alias=True, exclude_none=True)

    def model_of(answer):
        """The generated model an anyOf answer was read as, and its fields."""
        return {"model": type(answer.actual_instance).__name__, "fields": fields(answer.actual_instance)}

    try:
        basic = platform_client.Configuration(
            host=args.base_url, username=args.client_id, password=args.client_secret
        )
        with platform_client.ApiClient(basic) as client:
            authentication = platform_client.AuthenticationApi(client)
            scope = " ".join(fixtures["scopes"])
            token = step(
                "token",
                lambda: fields(authentication.create_access_token(grant_type="client_credentials", scope=scope)),
            )

        bearer = platform_client.Configuration(host=args.base_url, access_token=token["access_token"])
        with platform_client.ApiClient(bearer) as client:
            users = platform_client.UsersApi(client)
            groups = platform_client.GroupsApi(client)
            datasets = platform_client.DatasetsApi(client)

            user = step("createUser", lambda: fields(users.create_user(UserCreate.from_dict(fixtures["user"]))))
            step("getUser", lambda: model_of(users.get_user(user["id"])))
            step("listUsers", lambda: [summary.id for summary in users.list_users(limit=500)])
            step("updateUser", lambda: users.update_user(user["id"], UserUpdate.from_dict(fixtures["userUpdate"])))
            step("getUpdatedUser", lambda: model_of(users.get_user(user["id"])))

            group = step("createGroup", lambda: fields(groups.create_group(GroupCreate.from_dict(fixtures["group"]))))
            step("addGroupUser", lambda: groups.add_group_user(group["id"], user["id"]))
            step("listGroupUsers", lambda: groups.list_group_users(group["id"]))
            step("removeGroupUser", lambda: groups.remove_group_user(group["id"], user["id"]))
            step("listGroupUsersAfterRemoval", lambda: groups.list_group_users(group["id"]))
            step("deleteGroup", lambda: groups.delete_group(group["id"]))

            step("deleteUser", lambda: users.delete_user(user["id"]))
            step("getDeletedUser", lambda: model_of(users.get_user(user["id"])))

            dataset = step(
                "createDataset", lambda: fields(datasets.create_dataset(DatasetCreate.from_dict(fixtures["dataset"])))
            )
            step("importDatasetData", lambda: datasets.import_dataset_data(dataset["id"], fixtures["csv"]))
            step("exportDatasetData", lambda: datasets.export_dataset_data(dataset["id"], include_header=True))
            step("deleteDataset", lambda: datasets.delete_dataset(dataset["id"]))
    except Exception:  # noqa: BLE001 — the failed step is in the report; the steps after it are not run
        pass
    print("GENERATED_CLIENT_WALK " + json.dumps({"steps": steps}, default=str))


if __name__ == "__main__":
    main()
