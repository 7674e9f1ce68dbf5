// The pydomo walk, made with the client oapi-codegen makes from the platform bundle (package `platform`,
// generated next to this file by test/matrix.test.ts). Prints one line, `GENERATED_CLIENT_WALK <json>`:
// each step's name, whether it succeeded, and what the client gave back as its own types read it. The
// step names and values are those of the Python walk (../python_walk.py): one set of assertions judges both.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strings"

	"generatedclient/platform"
)

type fixtures struct {
	Scopes     []string               `json:"scopes"`
	User       platform.UserCreate    `json:"user"`
	UserUpdate platform.UserUpdate    `json:"userUpdate"`
	Group      platform.GroupCreate   `json:"group"`
	Dataset    platform.DatasetCreate `json:"dataset"`
	CSV        string                 `json:"csv"`
}

type step struct {
	Name  string `json:"name"`
	OK    bool   `json:"ok"`
	Value any    `json:"value,omitempty"`
	Error string `json:"error,omitempty"`
}

// answer is what every generated response type has (and a `Body []byte` field, read by reflection).
type answer interface{ StatusCode() int }

// walk records the steps; after the first failure the remaining steps are not run.
type walk struct {
	steps  []step
	failed bool
}

func (w *walk) run(name string, action func() (any, error)) any {
	if w.failed {
		return nil
	}
	value, err := action()
	if err != nil {
		w.failed = true
		w.steps = append(w.steps, step{Name: name, Error: err.Error()})
		return nil
	}
	w.steps = append(w.steps, step{Name: name, OK: true, Value: value})
	return value
}

// checked turns a failed call or a non-2xx answer into an error that carries the status and body.
func checked(response answer, err error) error {
	if err != nil {
		return err
	}
	if status := response.StatusCode(); status < 200 || status > 299 {
		return fmt.Errorf("HTTP %d: %s", status, reflect.ValueOf(response).Elem().FieldByName("Body").Bytes())
	}
	return nil
}

func bearer(token string) platform.RequestEditorFn {
	return func(_ context.Context, request *http.Request) error {
		request.Header.Set("Authorization", "bearer "+token)
		return nil
	}
}

// userModel says which generated type a GET user answer is read as: a deleted user is a DeletedUser
// whose `deleted` is true; anything else is a User.
func userModel(body *platform.GetUser200JSONResponseBody) (any, error) {
	if deleted, err := body.AsDeletedUser(); err == nil && deleted.Deleted {
		return map[string]any{"model": "DeletedUser", "fields": deleted}, nil
	}
	user, err := body.AsUser()
	if err != nil {
		return nil, err
	}
	return map[string]any{"model": "User", "fields": user}, nil
}

func main() {
	baseURL := flag.String("base-url", "", "the server's base URL")
	clientID := flag.String("client-id", "", "OAuth client id")
	clientSecret := flag.String("client-secret", "", "OAuth client secret")
	fixturesJSON := flag.String("fixtures", "", "JSON: scopes, user, userUpdate, group, dataset, csv")
	flag.Parse()

	var given fixtures
	if err := json.Unmarshal([]byte(*fixturesJSON), &given); err != nil {
		fmt.Fprintln(os.Stderr, "bad --fixtures:", err)
		os.Exit(2)
	}
	client, err := platform.NewClientWithResponses(*baseURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx := context.Background()
	w := &walk{}

	var token string
	w.run("token", func() (any, error) {
		scope := strings.Join(given.Scopes, " ")
		basic := func(_ context.Context, request *http.Request) error {
			request.SetBasicAuth(*clientID, *clientSecret)
			return nil
		}
		r, err := client.CreateAccessTokenWithFormdataBodyWithResponse(ctx, platform.TokenRequest{
			GrantType: platform.TokenRequestGrantTypeClientCredentials,
			Scope:     &scope,
		}, basic)
		if err := checked(r, err); err != nil {
			return nil, err
		}
		token = r.JSON200.AccessToken
		return r.JSON200, nil
	})
	auth := bearer(token)

	var userID int64
	w.run("createUser", func() (any, error) {
		r, err := client.CreateUserWithResponse(ctx, nil, given.User, auth)
		if err := checked(r, err); err != nil {
			return nil, err
		}
		if r.JSON201.Id == nil {
			return nil, errors.New("the created user has no id")
		}
		userID = *r.JSON201.Id
		return r.JSON201, nil
	})
	getUser := func() (any, error) {
		r, err := client.GetUserWithResponse(ctx, userID, auth)
		if err := checked(r, err); err != nil {
			return nil, err
		}
		return userModel(r.JSON200)
	}
	w.run("getUser", getUser)
	w.run("listUsers", func() (any, error) {
		limit := platform.ListLimit(500)
		r, err := client.ListUsersWithResponse(ctx, &platform.ListUsersParams{Limit: &limit}, auth)
		if err := checked(r, err); err != nil {
			return nil, err
		}
		ids := []int64{}
		for _, summary := range *r.JSON200 {
			ids = append(ids, summary.Id)
		}
		return ids, nil
	})
	w.run("updateUser", func() (any, error) {
		r, err := client.UpdateUserWithResponse(ctx, userID, given.UserUpdate, auth)
		return nil, checked(r, err)
	})
	w.run("getUpdatedUser", getUser)

	var groupID int64
	w.run("createGroup", func() (any, error) {
		r, err := client.CreateGroupWithResponse(ctx, given.Group, auth)
		if err := checked(r, err); err != nil {
			return nil, err
		}
		if r.JSON201.Id == nil {
			return nil, errors.New("the created group has no id")
		}
		groupID = *r.JSON201.Id
		return r.JSON201, nil
	})
	w.run("addGroupUser", func() (any, error) {
		r, err := client.AddGroupUserWithResponse(ctx, groupID, userID, platform.AddGroupUserJSONRequestBody{}, auth)
		return nil, checked(r, err)
	})
	listGroupUsers := func() (any, error) {
		r, err := client.ListGroupUsersWithResponse(ctx, groupID, nil, auth)
		if err := checked(r, err); err != nil {
			return nil, err
		}
		return *r.JSON200, nil
	}
	w.run("listGroupUsers", listGroupUsers)
	w.run("removeGroupUser", func() (any, error) {
		r, err := client.RemoveGroupUserWithResponse(ctx, groupID, userID, auth)
		return nil, checked(r, err)
	})
	w.run("listGroupUsersAfterRemoval", listGroupUsers)
	w.run("deleteGroup", func() (any, error) {
		r, err := client.DeleteGroupWithResponse(ctx, groupID, auth)
		return nil, checked(r, err)
	})

	w.run("deleteUser", func() (any, error) {
		r, err := client.DeleteUserWithResponse(ctx, userID, auth)
		return nil, checked(r, err)
	})
	w.run("getDeletedUser", getUser)

	var datasetID platform.DatasetId
	w.run("createDataset", func() (any, error) {
		r, err := client.CreateDatasetWithResponse(ctx, given.Dataset, auth)
		if err := checked(r, err); err != nil {
			return nil, err
		}
		if r.JSON201.Id == nil {
			return nil, errors.New("the created dataset has no id")
		}
		datasetID = *r.JSON201.Id
		return r.JSON201, nil
	})
	w.run("importDatasetData", func() (any, error) {
		r, err := client.ImportDatasetDataWithBodyWithResponse(
			ctx, datasetID, nil, "text/csv", strings.NewReader(given.CSV), auth)
		return nil, checked(r, err)
	})
	w.run("exportDatasetData", func() (any, error) {
		header := platform.IncludeHeader{}
		if err := header.FromQueryBoolean0(true); err != nil {
			return nil, err
		}
		r, err := client.ExportDatasetDataWithResponse(
			ctx, datasetID, &platform.ExportDatasetDataParams{IncludeHeader: &header}, auth)
		if err := checked(r, err); err != nil {
			return nil, err
		}
		return string(r.Body), nil
	})
	w.run("deleteDataset", func() (any, error) {
		r, err := client.DeleteDatasetWithResponse(ctx, datasetID, auth)
		return nil, checked(r, err)
	})

	report, err := json.Marshal(map[string]any{"steps": w.steps})
	if err != nil {
		fmt.Fprintln(os.Stderr, errors.Join(errors.New("cannot encode the report"), err))
		os.Exit(2)
	}
	fmt.Println("GENERATED_CLIENT_WALK " + string(report))
}
