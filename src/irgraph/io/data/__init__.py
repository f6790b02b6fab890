"""Input and output data files: ``.npz`` / ``.npy`` (``npz``) and Polygraphy JSON (``polygraphy_json``)."""
