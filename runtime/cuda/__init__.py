"""The cuda backend (PyCUDA, optional extra): one context and stream per GPU."""
