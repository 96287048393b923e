"""What every bench experiment shares: the runner (runner.py: the images, the
plugin, the boots, the checks), the plugin's output as data (data.py), the
report's page (report.py), the cost model (cost.py), the paired statistics
(paired.py) and the cases several experiments compare (cases.py).
Experiments import from here, never from each other.
"""
