"""Ops of OpenVINO's 'comparison' spec category."""
