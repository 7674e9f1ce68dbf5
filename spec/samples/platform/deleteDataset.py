import os

from pydomo import Domo

domo = Domo(os.environ["PLATFORM_CLIENT_ID"], os.environ["PLATFORM_CLIENT_SECRET"],
            api_host=os.environ.get("PLATFORM_API_HOST", "api.example.com"),
            use_https=os.environ.get("PLATFORM_API_HTTPS", "true") == "true", scope=["data"])
domo.ds_delete("2f7fb1a5-6b3c-4a0e-9a4e-1c2d3e4f5a6b", prompt_before_delete=False)
