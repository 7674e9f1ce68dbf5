import os

from pydomo import Domo

domo = Domo(os.environ["PLATFORM_CLIENT_ID"], os.environ["PLATFORM_CLIENT_SECRET"],
            api_host=os.environ.get("PLATFORM_API_HOST", "api.example.com"),
            use_https=os.environ.get("PLATFORM_API_HTTPS", "true") == "true", scope=["user"])
print(domo.groups.update(876655018, {"name": "Former Groupy Group", "active": False}))
