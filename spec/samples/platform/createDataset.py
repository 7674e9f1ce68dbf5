import os

from pydomo import Domo
from pydomo.datasets import Column, ColumnType, DataSetRequest, Schema

domo = Domo(os.environ["PLATFORM_CLIENT_ID"], os.environ["PLATFORM_CLIENT_SECRET"],
            api_host=os.environ.get("PLATFORM_API_HOST", "api.example.com"),
            use_https=os.environ.get("PLATFORM_API_HTTPS", "true") == "true", scope=["data"])
request = DataSetRequest()
request.name = "Leonhard Euler Party"
request.description = "Mathematician guest list"
request.schema = Schema([Column(ColumnType.STRING, "Friend"), Column(ColumnType.STRING, "Attending"),
                         Column(ColumnType.DATE, "Invited")])
print(domo.datasets.create(request)["id"])
