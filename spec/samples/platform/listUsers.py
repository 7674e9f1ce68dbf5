import os

from pydomo import Domo

domo = Domo(os.environ["PLATFORM_CLIENT_ID"], os.environ["PLATFORM_CLIENT_SECRET"],
            api_host=os.environ.get("PLATFORM_API_HOST", "api.example.com"),
            use_https=os.environ.get("PLATFORM_API_HTTPS", "true") == "true", scope=["user"])
for user in domo.users.list(500, 0):  # one page; users_list() reads them all
    print(user["id"], user["email"])
