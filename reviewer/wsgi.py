import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewer.settings")
application = get_wsgi_application()
# Fail at start, not on the first login: reading an empty SECRET_KEY raises
# ImproperlyConfigured (it is only generated when DEBUG is on).
settings.SECRET_KEY  # noqa: B018
