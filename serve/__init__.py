"""`tally serve`: the record service over HTTP (the app in `app.py`); imported only by the serve command."""
