import pytest
from django.conf import LazySettings


@pytest.fixture(autouse=True)
def _media_root(settings: LazySettings, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Uploaded and generated files go to a temporary folder, never ./var."""
    settings.MEDIA_ROOT = tmp_path_factory.mktemp("media")
