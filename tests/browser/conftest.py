def pytest_configure(config):
    config.addinivalue_line("markers", "slow: starts real kernels or a browser (part of the default suite)")
