import os

from pydomo import Domo

domo = Domo(os.environ["PLATFORM_CLIENT_ID"], os.environ["PLATFORM_CLIENT_SECRET"],
            api_host=os.environ.get("PLATFORM_API_HOST", "api.example.com"),
            use_https=os.environ.get("PLATFORM_API_HTTPS", "true") == "true", scope=["user"])
user = domo.users_add("Leonhard Euler", "leonhard.euler@example.com", "Participant")
print(user["id"])
