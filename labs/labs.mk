labs:
